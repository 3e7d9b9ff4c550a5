package scheduler

import (
	"net/netip"
	"slices"
	"sync"
	"time"

	"k8s.io/utils/clock"
)

// maglevSize is IPVS mh's default lookup table size (a prime).
const maglevSize = 251

// maglev is mh: Maglev consistent hashing of the client address, with
// each backend taking turns in proportion to its weight.
type maglev struct {
	mu    sync.Mutex
	built []string
	table []int
}

func (s *maglev) Pick(r Request, bs []*Backend, skip func(*Backend) bool) *Backend {
	if len(bs) == 0 {
		return nil
	}
	s.mu.Lock()
	if !sameKeys(s.built, bs) {
		s.built, s.table = keysOf(bs), maglevTable(bs)
	}
	table := s.table
	s.mu.Unlock()
	if table == nil {
		return nil
	}
	start := hashAddr(r.Client, "mh") % maglevSize
	for i := uint32(0); i < maglevSize; i++ {
		if b := bs[table[(start+i)%maglevSize]]; usable(b, skip) {
			return b
		}
	}
	return nil
}

// maglevTable fills the lookup table: backend i walks its permutation
// (offset, skip from hashes of its key) claiming the next free slot,
// weight times per round.
func maglevTable(bs []*Backend) []int {
	type perm struct{ offset, skip, next uint32 }
	perms := make([]perm, len(bs))
	maxW := 0
	for i, b := range bs {
		perms[i] = perm{offset: hashAddr(netip.Addr{}, b.Key) % maglevSize, skip: hashAddr(netip.Addr{}, b.Key+"#")%(maglevSize-1) + 1}
		maxW = max(maxW, b.Weight)
	}
	if maxW == 0 {
		return nil
	}
	table := make([]int, maglevSize)
	for i := range table {
		table[i] = -1
	}
	filled := 0
	for round := 0; filled < maglevSize; round++ {
		for i, b := range bs {
			if b.Weight <= round%maxW {
				continue
			}
			p := &perms[i]
			for {
				c := (p.offset + p.next*p.skip) % maglevSize
				p.next++
				if table[c] < 0 {
					table[c] = i
					filled++
					break
				}
			}
			if filled == maglevSize {
				break
			}
		}
	}
	return table
}

// overloaded is IPVS lblc's test: more active connections than weight
// while another backend is at most half loaded.
func overloaded(b *Backend, bs []*Backend, skip func(*Backend) bool) bool {
	if b.Active.Load() <= int64(b.Weight) {
		return false
	}
	for _, o := range bs {
		if usable(o, skip) && 2*o.Active.Load() < int64(o.Weight) {
			return true
		}
	}
	return false
}

func find(bs []*Backend, key string) *Backend {
	for _, b := range bs {
		if b.Key == key {
			return b
		}
	}
	return nil
}

// lblc: each destination keeps its backend until that one is unusable
// or overloaded; then wlc picks a new one.
type lblc struct {
	mu    sync.Mutex
	table map[netip.Addr]string
}

func (s *lblc) Pick(r Request, bs []*Backend, skip func(*Backend) bool) *Backend {
	s.mu.Lock()
	defer s.mu.Unlock()
	if b := find(bs, s.table[r.Dest]); b != nil && usable(b, skip) && !overloaded(b, bs, skip) {
		return b
	}
	b := weightedLeastConn{}.Pick(r, bs, skip)
	if b != nil {
		s.table[r.Dest] = b.Key
	}
	return b
}

// lblcrExpire is how long a replica set keeps its extra members after its
// last change (IPVS: 6 minutes).
const lblcrExpire = 6 * time.Minute

// lblcr: each destination has a set of backends; the least loaded member
// serves; an overloaded set grows by the wlc pick; a set unchanged for
// lblcrExpire drops its most loaded member.
type lblcr struct {
	clock clock.PassiveClock
	mu    sync.Mutex
	sets  map[netip.Addr]*replicaSet
}

type replicaSet struct {
	keys     []string
	modified time.Time
}

func (s *lblcr) Pick(r Request, bs []*Backend, skip func(*Backend) bool) *Backend {
	s.mu.Lock()
	defer s.mu.Unlock()
	set := s.sets[r.Dest]
	if set == nil {
		set = &replicaSet{modified: s.clock.Now()}
		s.sets[r.Dest] = set
	}
	var members []*Backend
	for _, k := range set.keys {
		if b := find(bs, k); b != nil && usable(b, skip) {
			members = append(members, b)
		}
	}
	if len(members) > 1 && s.clock.Since(set.modified) > lblcrExpire {
		most := members[0]
		for _, m := range members[1:] {
			if m.Active.Load()*int64(most.Weight) > most.Active.Load()*int64(m.Weight) {
				most = m
			}
		}
		set.keys = slices.DeleteFunc(set.keys, func(k string) bool { return k == most.Key })
		members = slices.DeleteFunc(members, func(b *Backend) bool { return b == most })
		set.modified = s.clock.Now()
	}
	b := weightedLeastConn{}.Pick(r, members, nil)
	if b == nil || overloaded(b, bs, skip) {
		if n := (weightedLeastConn{}).Pick(r, bs, skip); n != nil && !slices.Contains(set.keys, n.Key) {
			set.keys = append(set.keys, n.Key)
			set.modified = s.clock.Now()
			b = n
		} else if b == nil {
			b = n
		}
	}
	return b
}
