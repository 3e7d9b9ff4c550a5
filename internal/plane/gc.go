package plane

import (
	"fmt"
	"runtime/debug"
)

// DefaultGCPercent is the Go garbage collector's target of a `server` or
// `up` process unless GOGC is set: the heap grows to live × 1.5 before a
// collection instead of the runtime's live × 2. The API server's heap is
// mostly its watch cache and informer caches, which only grow with the
// cluster, so RSS follows the heap goal: at 10,000 pods the server's peak
// RSS fell from 1.29 GB to ~0.9 GB (`svcplane bench nodes`; figures in
// docs/architecture.md, "Server memory").
const DefaultGCPercent = 50

// ApplyGCPercent sets the collector's target percent for this process,
// unless the GOGC environment variable (getenv("GOGC")) is set, in which
// case the runtime already follows it and the user's choice stands. It
// returns the percent in force afterwards (-1: GOGC=off) and whether it
// set it.
func ApplyGCPercent(percent int, getenv func(string) string) (int, bool) {
	if getenv("GOGC") != "" {
		cur := debug.SetGCPercent(100)
		debug.SetGCPercent(cur)
		return cur, false
	}
	debug.SetGCPercent(percent)
	return percent, true
}

// ValidGCPercent checks --gc-percent (the server's and the proxy's).
func ValidGCPercent(p int) error {
	if p < 10 || p > 1000 {
		return fmt.Errorf("--gc-percent %d: want 10 to 1000 (the GOGC environment variable, when set, takes precedence; GOGC=off turns collection off)", p)
	}
	return nil
}
