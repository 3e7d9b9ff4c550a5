package userspace

import (
	"net/netip"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/utils/clock"

	"github.com/svcplane/svcplane/internal/proxy"
	"github.com/svcplane/svcplane/internal/proxy/scheduler"
)

// Verdicts of a pool without endpoints.
const (
	verdictReject = "reject" // no endpoints at all: refuse at once
	verdictDrop   = "drop"   // none for this traffic policy: drop
)

// pool is the endpoints one listener spreads over; sync swaps it whole.
// It holds the snapshot's endpoints (the tracker's slice, not a copy,
// unless a traffic policy or topology filtered some out); the scheduler's
// Backends, with their counts of open connections, are built at the
// pool's first connection (balancer.backends), so an idle Service port
// holds none.
type pool struct {
	eps     []proxy.Endpoint
	verdict string // set when eps is empty
	// sourceRanges, when set, are the only clients allowed (load-balancer
	// source ranges).
	sourceRanges []netip.Prefix
	// built is eps as Backends, once a connection needed them.
	built atomic.Pointer[[]*scheduler.Backend]
}

// empty: the pool has no endpoint (its verdict applies).
func (p *pool) empty() bool { return len(p.eps) == 0 }

// balancer picks endpoints for one listener: the current pool, the
// scheduler and the ClientIP affinity table.
type balancer struct {
	pool     atomic.Pointer[pool]
	sched    scheduler.Scheduler
	dest     netip.Addr
	affinity *affinity
	// mu serialises building pools' Backends; ref is the pool whose
	// Backends were built last that is the current one or newer than
	// any built before (nil: none built yet).
	mu  sync.Mutex
	ref *pool
}

// backends returns p's Backends, building them at first use. An endpoint
// that is in ref's Backends keeps its Backend, so the connections open
// through an older pool still count for the least-connection schedulers
// (as when every pool's Backends were built at its sync).
func (b *balancer) backends(p *pool) []*scheduler.Backend {
	if bs := p.built.Load(); bs != nil {
		return *bs
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if bs := p.built.Load(); bs != nil {
		return *bs
	}
	var prev map[string]*scheduler.Backend
	if b.ref != nil {
		old := *b.ref.built.Load()
		prev = make(map[string]*scheduler.Backend, len(old))
		for _, be := range old {
			prev[be.Key] = be
		}
	}
	bs := make([]*scheduler.Backend, len(p.eps))
	for i, ep := range p.eps {
		key := ep.String()
		if bs[i] = prev[key]; bs[i] == nil {
			bs[i] = &scheduler.Backend{Key: key, Weight: 1}
		}
	}
	p.built.Store(&bs)
	// An older pool (a connection that read it before a sync swapped
	// it) builds from ref but does not replace it, unless none was built
	// before: then the current pool builds from it.
	if b.ref == nil || b.pool.Load() == p {
		b.ref = p
	}
	return bs
}

// pick returns an endpoint for client, skipping those in tried.
func (b *balancer) pick(client netip.Addr, tried map[string]bool) *scheduler.Backend {
	p := b.pool.Load()
	backends := b.backends(p)
	skip := func(be *scheduler.Backend) bool { return tried[be.Key] }
	if b.affinity != nil {
		if key, ok := b.affinity.lookup(client); ok && !tried[key] {
			for _, be := range backends {
				if be.Key == key && be.Weight > 0 {
					b.affinity.record(client, key)
					return be
				}
			}
		}
	}
	be := b.sched.Pick(scheduler.Request{Client: client, Dest: b.dest}, backends, skip)
	if be != nil && b.affinity != nil {
		b.affinity.record(client, be.Key)
	}
	return be
}

// allowed applies the pool's source ranges.
func (p *pool) allowed(client netip.Addr) bool {
	if len(p.sourceRanges) == 0 {
		return true
	}
	for _, r := range p.sourceRanges {
		if r.Contains(client.Unmap()) {
			return true
		}
	}
	return false
}

// newPool builds a pool of eps (verdict applies when there are none).
func newPool(eps []proxy.Endpoint, verdict string, ranges []netip.Prefix) *pool {
	p := &pool{eps: eps, sourceRanges: ranges}
	if len(eps) == 0 {
		p.eps, p.verdict = nil, verdict
	}
	return p
}

// affinity is ClientIP session affinity: a client keeps its endpoint
// while it comes back within the timeout.
type affinity struct {
	clock   clock.PassiveClock
	timeout time.Duration
	mu      sync.Mutex
	entries map[netip.Addr]affinityEntry
}

type affinityEntry struct {
	key  string
	last time.Time
}

func newAffinity(clk clock.PassiveClock, timeout time.Duration) *affinity {
	return &affinity{clock: clk, timeout: timeout, entries: map[netip.Addr]affinityEntry{}}
}

func (a *affinity) lookup(client netip.Addr) (string, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	e, ok := a.entries[client]
	if !ok || a.clock.Since(e.last) > a.timeout {
		delete(a.entries, client)
		return "", false
	}
	return e.key, true
}

func (a *affinity) record(client netip.Addr, key string) {
	a.mu.Lock()
	a.entries[client] = affinityEntry{key: key, last: a.clock.Now()}
	a.mu.Unlock()
}
