package ipvs

import (
	"errors"
	"net/netip"
	"os"
	"runtime"
	"slices"
	"testing"

	"github.com/vishvananda/netns"
	"golang.org/x/sys/unix"
)

// inNewNetns runs f on a locked thread inside a fresh network namespace
// (root only), so real links and addresses touch nothing of the host; a
// reason f returns skips the test (t.Skip must run on the test goroutine).
func inNewNetns(t *testing.T, f func() (skip string)) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root for a network namespace")
	}
	done := make(chan struct{})
	skip := ""
	go func() {
		defer close(done)
		runtime.LockOSThread() // never unlocked: the thread dies with its namespace
		orig, err := netns.Get()
		if err != nil {
			t.Error(err)
			return
		}
		defer orig.Close()
		ns, err := netns.New()
		if err != nil {
			t.Error(err)
			return
		}
		defer ns.Close()
		skip = f()
	}()
	<-done
	if skip != "" {
		t.Skip(skip)
	}
}

// TestNetlinkLinksAddresses: the real Links over rtnetlink list, add and
// delete addresses of both families as FakeLinks promises (and as `ip`
// did), refusing a second add of one address. It works on the fresh
// namespace's lo: this machine's kernel has no dummy links.
func TestNetlinkLinksAddresses(t *testing.T) {
	inNewNetns(t, func() string {
		var l NetlinkLinks
		const dev = "lo"
		v4, v6 := netip.MustParseAddr("10.96.0.10"), netip.MustParseAddr("fd00:96::a")
		for _, a := range []netip.Addr{v4, v6} {
			if err := l.AddAddr(dev, a); err != nil {
				t.Errorf("AddAddr %s: %v", a, err)
				return ""
			}
		}
		if err := l.AddAddr(dev, v4); err == nil {
			t.Error("adding an address twice succeeded")
		}
		got, err := l.Addrs(dev)
		if err != nil || !slices.Contains(got, v4) || !slices.Contains(got, v6) {
			t.Errorf("Addrs = %v, %v; want both", got, err)
		}
		if err := l.DelAddr(dev, v4); err != nil {
			t.Errorf("DelAddr: %v", err)
		}
		if got, _ := l.Addrs(dev); slices.Contains(got, v4) || !slices.Contains(got, v6) {
			t.Errorf("after DelAddr: %v", got)
		}
		if err := l.DeleteLink("kube-ipvs0"); err != nil {
			t.Errorf("DeleteLink of a missing link: %v", err)
		}
		if _, err := l.Addrs("kube-ipvs0"); err == nil {
			t.Error("Addrs of a missing link succeeded")
		}
		return ""
	})
}

// TestNetlinkLinksDummy: EnsureDummy makes an up dummy link once and is
// idempotent; DeleteLink removes it. Skipped where the kernel has no dummy
// links (this machine's).
func TestNetlinkLinksDummy(t *testing.T) {
	inNewNetns(t, func() string {
		var l NetlinkLinks
		const dev = "kube-ipvs0"
		if err := l.EnsureDummy(dev); err != nil {
			if errors.Is(err, unix.EOPNOTSUPP) {
				return "the kernel has no dummy links (CONFIG_DUMMY)"
			}
			t.Errorf("EnsureDummy: %v", err)
			return ""
		}
		if err := l.EnsureDummy(dev); err != nil {
			t.Errorf("EnsureDummy again: %v", err)
		}
		if err := l.DeleteLink(dev); err != nil {
			t.Errorf("DeleteLink: %v", err)
		}
		if _, err := l.Addrs(dev); err == nil {
			t.Error("the link outlived DeleteLink")
		}
		return ""
	})
}

// BenchmarkNetlinkAddAddr: binding one ClusterIP to the link (and
// unbinding it), as a full sync of N Services does N times.
func BenchmarkNetlinkAddAddr(b *testing.B) {
	if os.Geteuid() != 0 {
		b.Skip("needs root for a network namespace")
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		runtime.LockOSThread()
		ns, err := netns.New()
		if err != nil {
			b.Error(err)
			return
		}
		defer ns.Close()
		var l NetlinkLinks
		base := netip.MustParseAddr("10.96.0.0")
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			a := base
			for j := 0; j <= i%5000; j++ {
				a = a.Next()
			}
			if err := l.AddAddr("lo", a); err != nil {
				b.Error(err)
				return
			}
			if err := l.DelAddr("lo", a); err != nil {
				b.Error(err)
				return
			}
		}
	}()
	<-done
}
