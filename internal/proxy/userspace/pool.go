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
type pool struct {
	backends []*scheduler.Backend
	verdict  string // set when backends is empty
	// sourceRanges, when set, are the only clients allowed (load-balancer
	// source ranges).
	sourceRanges []netip.Prefix
}

// balancer picks endpoints for one listener: the current pool, the
// scheduler and the ClientIP affinity table.
type balancer struct {
	pool     atomic.Pointer[pool]
	sched    scheduler.Scheduler
	dest     netip.Addr
	affinity *affinity
}

// pick returns an endpoint for client, skipping those in tried.
func (b *balancer) pick(client netip.Addr, tried map[string]bool) *scheduler.Backend {
	p := b.pool.Load()
	skip := func(be *scheduler.Backend) bool { return tried[be.Key] }
	if b.affinity != nil {
		if key, ok := b.affinity.lookup(client); ok && !tried[key] {
			for _, be := range p.backends {
				if be.Key == key && be.Weight > 0 {
					b.affinity.record(client, key)
					return be
				}
			}
		}
	}
	be := b.sched.Pick(scheduler.Request{Client: client, Dest: b.dest}, p.backends, skip)
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

// newPool builds a pool, reusing backends (and their connection counts)
// of old that are still endpoints.
func newPool(old *pool, eps []proxy.Endpoint, verdict string, ranges []netip.Prefix) *pool {
	p := &pool{sourceRanges: ranges}
	if len(eps) == 0 {
		p.verdict = verdict
		return p
	}
	prev := map[string]*scheduler.Backend{}
	if old != nil {
		for _, b := range old.backends {
			prev[b.Key] = b
		}
	}
	for _, ep := range eps {
		if b := prev[ep.String()]; b != nil {
			p.backends = append(p.backends, b)
			continue
		}
		p.backends = append(p.backends, &scheduler.Backend{Key: ep.String(), Weight: 1})
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
