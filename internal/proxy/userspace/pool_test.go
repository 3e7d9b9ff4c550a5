package userspace

import (
	"net/netip"
	"slices"
	"testing"

	"github.com/svcplane/svcplane/internal/proxy"
	"github.com/svcplane/svcplane/internal/proxy/scheduler"
)

func endpoints(ips ...string) []proxy.Endpoint {
	var eps []proxy.Endpoint
	for _, ip := range ips {
		eps = append(eps, proxy.Endpoint{IP: netip.MustParseAddr(ip), Port: 8080, Ready: true, Serving: true})
	}
	return eps
}

// TestPoolBackendsAtFirstConnection: a pool builds its Backends at its
// first pick, not at its sync; an endpoint that stays across a swap keeps
// its Backend, so the connections open through the older pool count for
// the least-connection scheduler of the new one.
func TestPoolBackendsAtFirstConnection(t *testing.T) {
	client := netip.MustParseAddr("10.1.0.1")
	for _, tc := range []struct {
		name string
		// viaOld: the first connection picks from the first pool after
		// the sync swapped it (it read the pool before the swap).
		viaOld bool
	}{{"connection before the swap", false}, {"connection through the swapped pool", true}} {
		t.Run(tc.name, func(t *testing.T) {
			lc, err := scheduler.New("lc", nil)
			if err != nil {
				t.Fatal(err)
			}
			b := &balancer{sched: lc}
			p1 := newPool(endpoints("10.0.0.1", "10.0.0.2"), verdictReject, nil)
			b.pool.Store(p1)
			if p1.built.Load() != nil {
				t.Fatal("Backends built before any connection")
			}
			p2 := newPool(endpoints("10.0.0.1", "10.0.0.3", "10.0.0.2"), verdictReject, nil)
			var first *scheduler.Backend
			if tc.viaOld {
				b.pool.Store(p2)
				first = b.backends(p1)[0]
			} else {
				first = b.pick(client, nil)
				b.pool.Store(p2)
			}
			first.Active.Add(1) // an open connection
			if p2.built.Load() != nil {
				t.Fatal("the swapped-in pool built its Backends before a connection")
			}
			var got []string
			for range 2 {
				be := b.pick(client, nil)
				be.Active.Add(1)
				got = append(got, be.Key)
			}
			if slices.Contains(got, first.Key) {
				t.Errorf("picks %v include %s, which has an open connection from the older pool", got, first.Key)
			}
			if !slices.Contains(b.backends(p2), first) {
				t.Errorf("%s got a new Backend in the new pool (its connection count is lost)", first.Key)
			}
		})
	}
}

// TestPoolWithoutEndpoints: an empty pool has its verdict and no Backends.
func TestPoolWithoutEndpoints(t *testing.T) {
	p := newPool(nil, verdictDrop, nil)
	if !p.empty() || p.verdict != verdictDrop {
		t.Errorf("empty pool: empty %v, verdict %q", p.empty(), p.verdict)
	}
	rr, _ := scheduler.New("rr", nil)
	b := &balancer{sched: rr}
	b.pool.Store(p)
	if be := b.pick(netip.MustParseAddr("10.1.0.1"), nil); be != nil {
		t.Errorf("picked %s from an empty pool", be.Key)
	}
}
