package netns

import (
	"os"

	"github.com/vishvananda/netns"

	"github.com/svcplane/svcplane/internal/netnsutil"
)

// newNS is netnsutil.New.
func newNS() (netns.NsHandle, error) { return netnsutil.New() }

// inNS is netnsutil.Do.
func inNS(ns netns.NsHandle, fn func() error) error { return netnsutil.Do(ns, fn) }

// writeSysctl writes value to /proc/sys/<path> in ns (net.* sysctls are per
// namespace: /proc/sys/net is the opening thread's).
func writeSysctl(ns netns.NsHandle, path, value string) error {
	return inNS(ns, func() error {
		return os.WriteFile("/proc/sys/"+path, []byte(value), 0o644)
	})
}
