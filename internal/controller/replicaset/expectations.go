package replicaset

import (
	"sync"
	"time"

	"k8s.io/utils/clock"
)

// expectationsTTL bounds how long unobserved creations or deletions hold a
// ReplicaSet back (a watch event may be lost).
const expectationsTTL = 5 * time.Minute

// expectations counts, per ReplicaSet, the pod creations and deletions it
// made and has not seen in the informer yet; while any are pending the
// controller does not act on the (stale) pod list.
type expectations struct {
	mu    sync.Mutex
	clock clock.PassiveClock
	m     map[string]*expectation
}

type expectation struct {
	adds, dels int
	at         time.Time
}

func newExpectations(clk clock.PassiveClock) *expectations {
	return &expectations{clock: clk, m: map[string]*expectation{}}
}

func (e *expectations) expect(key string, adds, dels int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.m[key] = &expectation{adds: adds, dels: dels, at: e.clock.Now()}
}

func (e *expectations) observe(key string, adds, dels int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if x := e.m[key]; x != nil {
		x.adds -= adds
		x.dels -= dels
	}
}

// satisfied reports whether key may act: nothing pending, or it expired.
func (e *expectations) satisfied(key string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	x := e.m[key]
	return x == nil || (x.adds <= 0 && x.dels <= 0) || e.clock.Since(x.at) > expectationsTTL
}

func (e *expectations) forget(key string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	delete(e.m, key)
}
