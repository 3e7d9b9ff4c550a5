package netnsutil

import (
	"errors"
	"os"
	"runtime"
	"testing"

	"github.com/vishvananda/netns"
)

func TestDoEntersAndReturns(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root for network namespaces")
	}
	runtime.LockOSThread()
	orig, _ := netns.Get()
	other, err := netns.New() // enters it
	if err != nil {
		runtime.UnlockOSThread()
		t.Fatal(err)
	}
	_ = netns.Set(orig)
	runtime.UnlockOSThread()
	defer orig.Close()
	defer other.Close()
	var inside netns.NsHandle
	want := errors.New("fn's error")
	err = Do(other, func() error {
		inside, _ = netns.Get()
		return want
	})
	defer inside.Close()
	if err != want || !inside.Equal(other) {
		t.Fatalf("Do: err %v, ran in %v, want %v", err, inside, other)
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if now, _ := netns.Get(); !now.Equal(orig) {
		t.Errorf("a thread was left in the other namespace")
	}
}
