package netnsutil

import (
	"fmt"
	"runtime"

	"github.com/vishvananda/netns"
)

// Do runs fn on a locked OS thread that has entered ns; the thread
// returns to its namespace after fn. Sockets fn creates belong to ns for
// their life, whichever thread later uses them, and processes it starts
// begin there.
func Do(ns netns.NsHandle, fn func() error) error {
	runtime.LockOSThread()
	orig, err := netns.Get()
	if err != nil {
		runtime.UnlockOSThread()
		return err
	}
	defer orig.Close()
	if err := netns.Set(ns); err != nil {
		runtime.UnlockOSThread()
		return fmt.Errorf("enter network namespace: %w", err)
	}
	ferr := fn()
	if err := netns.Set(orig); err != nil {
		// Never hand a thread in the wrong namespace back to the
		// scheduler: it stays locked and exits with this goroutine.
		return fmt.Errorf("leave network namespace: %w", err)
	}
	runtime.UnlockOSThread()
	return ferr
}

// New creates an anonymous network namespace and returns it open; the
// calling thread's namespace is left as it was.
func New() (netns.NsHandle, error) {
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
