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
