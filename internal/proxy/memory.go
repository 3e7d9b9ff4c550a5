package proxy

import (
	"runtime/debug"
	"sync/atomic"
	"time"
)

// DefaultGCPercent is the Go collector's target of a `svcplane proxy`
// process unless GOGC is set (its --gc-percent): the heap grows to
// live × 1.5 before a collection instead of the runtime's live × 2. The
// proxy's live heap is small (its informer caches and the installed
// rules: ~18 MB at 5,000 Services × 10 endpoints) and a collection of it
// costs a few milliseconds of CPU, while RSS follows the heap's goal.
// Figures in docs/architecture.md ("Proxy memory").
const DefaultGCPercent = 50

// MemoryReleaseInterval is how often at most a backend hands a full
// sync's garbage back to the OS, unless the process sets another
// interval (SetMemoryReleaseInterval).
const MemoryReleaseInterval = 10 * time.Minute

// releaseInterval is the process's interval (MemoryReleaseInterval
// unless set).
var releaseInterval atomic.Int64

func init() { releaseInterval.Store(int64(MemoryReleaseInterval)) }

// SetMemoryReleaseInterval sets, for the whole process, how often at
// most a backend releases memory after a full sync; 0: after every full
// sync. A standalone `svcplane proxy` sets 0: collecting its own small
// heap after each periodic resync costs milliseconds, and otherwise the
// resync's garbage (the iptables mode's restore input is tens of
// megabytes) stays in its RSS for up to ten minutes. Under `svcplane up`
// the release would collect the API server's heap too, so the interval
// stays.
func SetMemoryReleaseInterval(d time.Duration) { releaseInterval.Store(int64(d)) }

// MemoryRelease hands a full sync's garbage (the previous plan, megabytes
// of rule text) back to the OS right after the sync, at a quiet moment,
// rather than letting the heap hold it or a later partial sync pay for
// collecting it. It does so at most every MemoryReleaseInterval: the
// periodic full resyncs would otherwise force a collection of the whole
// process (the API server too, under `svcplane up`) every syncPeriod. Not
// safe for concurrent use; each proxier owns one.
type MemoryRelease struct {
	last time.Time
	// release frees memory (debug.FreeOSMemory when nil).
	release func()
}

// AfterFullSync releases memory unless it did less than
// MemoryReleaseInterval before now. It reports whether it did.
func (m *MemoryRelease) AfterFullSync(now time.Time) bool {
	if !m.last.IsZero() && now.Sub(m.last) < time.Duration(releaseInterval.Load()) {
		return false
	}
	m.last = now
	if m.release != nil {
		m.release()
	} else {
		debug.FreeOSMemory()
	}
	return true
}
