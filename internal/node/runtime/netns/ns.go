package netns

import (
	"fmt"
	"os"
	"runtime"

	"github.com/vishvananda/netns"

	"github.com/svcplane/svcplane/internal/netnsutil"
)

// newNS creates an anonymous network namespace and returns it open; the
// calling thread's namespace is left as it was.
func newNS() (netns.NsHandle, error) {
	runtime.LockOSThread()
	orig, err := netns.Get()
	if err != nil {
		runtime.UnlockOSThread()
		return netns.None(), err
	}
	defer orig.Close()
	ns, err := netns.New()
	if err != nil {
		// unshare failed: the thread is where it was.
		runtime.UnlockOSThread()
		return netns.None(), fmt.Errorf("new network namespace: %w", err)
	}
	if err := netns.Set(orig); err != nil {
		// The thread stays locked and dies with this goroutine.
		ns.Close()
		return netns.None(), fmt.Errorf("back to the original network namespace: %w", err)
	}
	runtime.UnlockOSThread()
	return ns, nil
}

// inNS is netnsutil.Do.
func inNS(ns netns.NsHandle, fn func() error) error { return netnsutil.Do(ns, fn) }

// writeSysctl writes value to /proc/sys/<path> in ns (net.* sysctls are per
// namespace: /proc/sys/net is the opening thread's).
func writeSysctl(ns netns.NsHandle, path, value string) error {
	return inNS(ns, func() error {
		return os.WriteFile("/proc/sys/"+path, []byte(value), 0o644)
	})
}
