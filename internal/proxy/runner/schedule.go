package runner

import "time"

// schedule is the runner's pure decision state; the loop feeds it times.
type schedule struct {
	minInterval, maxInterval, retryInterval time.Duration

	lastRun  time.Time // end of the last sync (zero: never ran)
	lastFull time.Time
	pending  bool      // a change is waiting
	retryAt  time.Time // non-zero after a failure
	failed   bool
}

// request records a change.
func (s *schedule) request() { s.pending = true }

// due reports whether a sync should start at now and whether it is full.
func (s *schedule) due(now time.Time) (run, full bool) {
	if s.lastRun.IsZero() {
		return true, true
	}
	if s.failed {
		return !now.Before(s.retryAt), true
	}
	if !now.Before(s.lastFull.Add(s.maxInterval)) {
		return true, true
	}
	if s.pending && !now.Before(s.lastRun.Add(s.minInterval)) {
		return true, false
	}
	return false, false
}

// next returns when due may next become true.
func (s *schedule) next() time.Time {
	if s.lastRun.IsZero() {
		return time.Time{}
	}
	if s.failed {
		return s.retryAt
	}
	t := s.lastFull.Add(s.maxInterval)
	if s.pending {
		if p := s.lastRun.Add(s.minInterval); p.Before(t) {
			t = p
		}
	}
	return t
}

// started clears the pending flag: changes arriving during the sync
// request another one.
func (s *schedule) started() { s.pending = false }

// finished records the end of a sync at now.
func (s *schedule) finished(now time.Time, full bool, err error) {
	s.lastRun = now
	if err != nil {
		s.failed = true
		s.retryAt = now.Add(s.retryInterval)
		return
	}
	s.failed = false
	if full {
		s.lastFull = now
	}
}
