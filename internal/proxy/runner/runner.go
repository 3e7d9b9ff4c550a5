package runner

import (
	"context"
	"time"

	"k8s.io/utils/clock"
)

// SyncFunc does one sync; full asks for a full resync rather than an
// incremental one.
type SyncFunc func(full bool) error

// BoundedFrequencyRunner runs a SyncFunc on request, rate-limited and with
// periodic full resyncs.
type BoundedFrequencyRunner struct {
	fn      SyncFunc
	clock   clock.Clock
	trigger chan struct{}
	s       schedule
}

// New returns a runner. minInterval bounds how often syncs run,
// maxInterval is the full-resync period and retryInterval the delay after
// a failed sync.
func New(fn SyncFunc, minInterval, maxInterval, retryInterval time.Duration, clk clock.Clock) *BoundedFrequencyRunner {
	return &BoundedFrequencyRunner{
		fn: fn, clock: clk, trigger: make(chan struct{}, 1),
		s: schedule{minInterval: minInterval, maxInterval: maxInterval, retryInterval: retryInterval},
	}
}

// Run requests a sync; it never blocks.
func (r *BoundedFrequencyRunner) Run() {
	select {
	case r.trigger <- struct{}{}:
	default:
	}
}

// Loop runs syncs until ctx is done. The first sync (full) starts at once.
func (r *BoundedFrequencyRunner) Loop(ctx context.Context) {
	timer := r.clock.NewTimer(0)
	defer timer.Stop()
	for {
		if run, full := r.s.due(r.clock.Now()); run {
			r.s.started()
			err := r.fn(full)
			r.s.finished(r.clock.Now(), full, err)
			continue
		}
		timer.Stop()
		wait := r.s.next().Sub(r.clock.Now())
		timer.Reset(max(wait, 0))
		select {
		case <-ctx.Done():
			return
		case <-r.trigger:
			r.s.request()
		case <-timer.C():
		}
	}
}
