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
	other, err := New()
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	runtime.LockOSThread()
	orig, _ := netns.Get()
	runtime.UnlockOSThread()
	defer orig.Close()
	if orig.Equal(other) {
		t.Fatal("New left the thread in the new namespace")
	}
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
