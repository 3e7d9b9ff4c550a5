package scheduler

import (
	"fmt"
	"hash/fnv"
	"net/netip"
	"slices"
	"sync"
	"sync/atomic"

	"k8s.io/utils/clock"
)

// Names are the IPVS scheduler names this package implements.
var Names = []string{"rr", "wrr", "lc", "wlc", "lblc", "lblcr", "sh", "dh", "sed", "nq", "mh"}

// Backend is one real server. Active is maintained by the caller (one
// more while a connection is open).
type Backend struct {
	Key    string // "ip:port", the identity hashing schedulers use
	Weight int
	Active atomic.Int64
}

// Request is what a scheduler may look at: the client and the virtual
// destination.
type Request struct {
	Client netip.Addr
	Dest   netip.Addr
}

// Scheduler picks a backend for a new connection.
type Scheduler interface {
	// Pick returns one of backends (never one with weight ≤ 0 or for
	// which skip returns true; skip may be nil), or nil.
	Pick(req Request, backends []*Backend, skip func(*Backend) bool) *Backend
}

// New returns the named scheduler; clk is used by lblcr (nil: real time).
func New(name string, clk clock.PassiveClock) (Scheduler, error) {
	if clk == nil {
		clk = clock.RealClock{}
	}
	switch name {
	case "", "rr":
		return &roundRobin{}, nil
	case "wrr":
		return &weightedRoundRobin{}, nil
	case "lc":
		return leastConn{overhead: func(b *Backend) int64 { return b.Active.Load() }}, nil
	case "wlc":
		return weightedLeastConn{}, nil
	case "sed":
		return shortestExpectedDelay{}, nil
	case "nq":
		return neverQueue{}, nil
	case "sh":
		return &hashing{key: func(r Request) netip.Addr { return r.Client }}, nil
	case "dh":
		return &hashing{key: func(r Request) netip.Addr { return r.Dest }}, nil
	case "mh":
		return &maglev{}, nil
	case "lblc":
		return &lblc{table: map[netip.Addr]string{}}, nil
	case "lblcr":
		return &lblcr{clock: clk, sets: map[netip.Addr]*replicaSet{}}, nil
	}
	return nil, fmt.Errorf("unknown scheduler %q (want one of %v)", name, Names)
}

func usable(b *Backend, skip func(*Backend) bool) bool {
	return b.Weight > 0 && (skip == nil || !skip(b))
}

// roundRobin: the next usable backend after the last one picked.
type roundRobin struct {
	mu   sync.Mutex
	next int
}

func (s *roundRobin) Pick(_ Request, bs []*Backend, skip func(*Backend) bool) *Backend {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := 0; i < len(bs); i++ {
		b := bs[(s.next+i)%len(bs)]
		if usable(b, skip) {
			s.next = (s.next + i + 1) % len(bs)
			return b
		}
	}
	return nil
}

// weightedRoundRobin is IPVS's interleaved WRR: the current weight steps
// down by the weights' gcd; backends at or above it are picked in turn.
type weightedRoundRobin struct {
	mu sync.Mutex
	i  int
	cw int
}

func (s *weightedRoundRobin) Pick(_ Request, bs []*Backend, skip func(*Backend) bool) *Backend {
	s.mu.Lock()
	defer s.mu.Unlock()
	maxW, g := 0, 0
	for _, b := range bs {
		if usable(b, skip) {
			maxW, g = max(maxW, b.Weight), gcd(g, b.Weight)
		}
	}
	if maxW == 0 {
		return nil
	}
	if s.i >= len(bs) {
		s.i = 0
	}
	for {
		s.i = (s.i + 1) % len(bs)
		if s.i == 0 {
			s.cw -= g
			if s.cw <= 0 {
				s.cw = maxW
			}
		}
		if b := bs[s.i]; usable(b, skip) && b.Weight >= s.cw {
			return b
		}
	}
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// leastConn picks the lowest overhead (first on ties).
type leastConn struct{ overhead func(*Backend) int64 }

func (s leastConn) Pick(_ Request, bs []*Backend, skip func(*Backend) bool) *Backend {
	var best *Backend
	var bestO int64
	for _, b := range bs {
		if !usable(b, skip) {
			continue
		}
		if o := s.overhead(b); best == nil || o < bestO {
			best, bestO = b, o
		}
	}
	return best
}

// weightedLeastConn picks the lowest active/weight (cross-multiplied).
type weightedLeastConn struct{}

func (weightedLeastConn) Pick(_ Request, bs []*Backend, skip func(*Backend) bool) *Backend {
	return pickMinRatio(bs, skip, func(b *Backend) int64 { return b.Active.Load() })
}

// pickMinRatio picks the backend with the least cost(b)/weight.
func pickMinRatio(bs []*Backend, skip func(*Backend) bool, cost func(*Backend) int64) *Backend {
	var best *Backend
	for _, b := range bs {
		if !usable(b, skip) {
			continue
		}
		if best == nil || cost(b)*int64(best.Weight) < cost(best)*int64(b.Weight) {
			best = b
		}
	}
	return best
}

// shortestExpectedDelay: least (active+1)/weight.
type shortestExpectedDelay struct{}

func (shortestExpectedDelay) Pick(_ Request, bs []*Backend, skip func(*Backend) bool) *Backend {
	return pickMinRatio(bs, skip, func(b *Backend) int64 { return b.Active.Load() + 1 })
}

// neverQueue: an idle backend if there is one, else sed.
type neverQueue struct{}

func (neverQueue) Pick(r Request, bs []*Backend, skip func(*Backend) bool) *Backend {
	for _, b := range bs {
		if usable(b, skip) && b.Active.Load() == 0 {
			return b
		}
	}
	return shortestExpectedDelay{}.Pick(r, bs, skip)
}

func hashAddr(a netip.Addr, seed string) uint32 {
	h := fnv.New32a()
	b := a.As16()
	h.Write(b[:])
	h.Write([]byte(seed))
	return h.Sum32()
}

// hashing is sh (key: client) or dh (key: destination): IPVS's 256-bucket
// table filled round-robin by weight; a bucket whose backend is unusable
// falls back to the next usable bucket (sh's fallback flag).
type hashing struct {
	key   func(Request) netip.Addr
	mu    sync.Mutex
	built []string // backend keys the table was built for
	table [256]int
}

func (s *hashing) Pick(r Request, bs []*Backend, skip func(*Backend) bool) *Backend {
	if len(bs) == 0 {
		return nil
	}
	s.mu.Lock()
	if !sameKeys(s.built, bs) {
		s.rebuild(bs)
	}
	table := s.table
	s.mu.Unlock()
	start := hashAddr(s.key(r), "") % 256
	for i := uint32(0); i < 256; i++ {
		if b := bs[table[(start+i)%256]]; usable(b, skip) {
			return b
		}
	}
	return nil
}

func (s *hashing) rebuild(bs []*Backend) {
	s.built = keysOf(bs)
	var slots []int
	for i, b := range bs {
		for w := 0; w < max(b.Weight, 1); w++ {
			slots = append(slots, i)
		}
	}
	for i := range s.table {
		s.table[i] = slots[i%len(slots)]
	}
}

func keysOf(bs []*Backend) []string {
	out := make([]string, len(bs))
	for i, b := range bs {
		out[i] = b.Key + "/" + fmt.Sprint(b.Weight)
	}
	return out
}

func sameKeys(keys []string, bs []*Backend) bool {
	return len(keys) == len(bs) && slices.Equal(keys, keysOf(bs))
}
