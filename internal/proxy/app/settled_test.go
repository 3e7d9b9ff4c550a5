package app

import (
	"testing"

	"github.com/svcplane/svcplane/internal/proxy"
)

func TestSettled(t *testing.T) {
	for _, tc := range []struct {
		name  string
		fams  []proxy.IPFamily
		syncs []proxy.IPFamily
		// calls after each sync
		want []int
	}{
		{"single stack: the first sync", []proxy.IPFamily{proxy.IPv4}, []proxy.IPFamily{proxy.IPv4, proxy.IPv4}, []int{1, 1}},
		{"dual stack waits for both", []proxy.IPFamily{proxy.IPv4, proxy.IPv6},
			[]proxy.IPFamily{proxy.IPv4, proxy.IPv4, proxy.IPv6, proxy.IPv4, proxy.IPv6}, []int{0, 0, 1, 1, 1}},
		{"a family the proxy does not run changes nothing", []proxy.IPFamily{proxy.IPv4}, []proxy.IPFamily{proxy.IPv6, proxy.IPv4}, []int{0, 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			calls := 0
			s := newSettled(tc.fams, func() { calls++ })
			for i, f := range tc.syncs {
				s.synced(f)
				if calls != tc.want[i] {
					t.Fatalf("after sync %d (%v): %d calls, want %d", i, f, calls, tc.want[i])
				}
			}
		})
	}
	newSettled([]proxy.IPFamily{proxy.IPv4}, nil).synced(proxy.IPv4) // nil fn: no call, no panic
}
