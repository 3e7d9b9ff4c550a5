package conntrack

import (
	"sync"

	"github.com/svcplane/svcplane/internal/proxy"
)

// Fake is an in-memory conntrack table per family.
type Fake struct {
	mu    sync.Mutex
	Flows map[proxy.IPFamily][]Flow
}

// NewFake returns an empty fake table.
func NewFake() *Fake { return &Fake{Flows: map[proxy.IPFamily][]Flow{}} }

// Add records entries.
func (f *Fake) Add(family proxy.IPFamily, flows ...Flow) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.Flows[family] = append(f.Flows[family], flows...)
}

// ListEntries is part of Interface.
func (f *Fake) ListEntries(family proxy.IPFamily) ([]Flow, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]Flow(nil), f.Flows[family]...), nil
}

// ClearEntries is part of Interface.
func (f *Fake) ClearEntries(family proxy.IPFamily, filters ...Filter) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var kept []Flow
	n := 0
	for _, fl := range f.Flows[family] {
		if matchesAny(filters, fl) {
			n++
		} else {
			kept = append(kept, fl)
		}
	}
	f.Flows[family] = kept
	return n, nil
}

func matchesAny(filters []Filter, fl Flow) bool {
	for _, f := range filters {
		if f.Matches(fl) {
			return true
		}
	}
	return false
}
