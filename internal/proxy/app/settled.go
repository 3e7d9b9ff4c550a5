package app

import (
	"sync"

	"github.com/svcplane/svcplane/internal/proxy"
)

// settled calls fn once, after each of the proxy's families has synced
// successfully for the first time: the start (informer lists, the first
// full syncs) is over and the process runs its steady state.
type settled struct {
	mu      sync.Mutex
	pending map[proxy.IPFamily]bool
	fn      func()
}

// newSettled waits for the first sync of each of fams; fn may be nil.
func newSettled(fams []proxy.IPFamily, fn func()) *settled {
	s := &settled{pending: map[proxy.IPFamily]bool{}, fn: fn}
	for _, f := range fams {
		s.pending[f] = true
	}
	return s
}

// synced records fam's successful sync; the one that leaves no family
// pending calls fn (outside the lock).
func (s *settled) synced(fam proxy.IPFamily) {
	s.mu.Lock()
	if len(s.pending) == 0 || !s.pending[fam] {
		s.mu.Unlock()
		return
	}
	delete(s.pending, fam)
	last := len(s.pending) == 0
	s.mu.Unlock()
	if last && s.fn != nil {
		s.fn()
	}
}
