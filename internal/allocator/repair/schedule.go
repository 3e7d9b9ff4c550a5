package repair

import (
	"context"
	"time"

	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
)

// FastInterval spaces the passes right after start: a value leaked by a
// crash of this server (allocated, the Service never written) is freed on
// the Threshold-th pass that finds it unused, so at most
// (Threshold-1) × FastInterval = 40 s after the first pass instead of
// (Threshold-1) × --repair-interval (6 min by default).
const FastInterval = 20 * time.Second

// passTimeout bounds one pass.
const passTimeout = time.Minute

// RunPasses calls pass (the first pass has run already) Threshold-1 times
// FastInterval apart (or interval apart, if shorter), then every interval,
// until ctx ends. Failures are logged and the schedule goes on. A pass
// under way when ctx ends is not cancelled (it takes milliseconds; a
// cancelled one left an etcd client warning and a failed-pass error on
// every stop that met one): it finishes, and no pass starts after.
func RunPasses(ctx context.Context, clk clock.Clock, interval time.Duration, pass func(context.Context) error) {
	for i := 1; ; i++ {
		wait := interval
		if i < Threshold {
			wait = min(interval, FastInterval)
		}
		select {
		case <-ctx.Done():
			return
		case <-clk.After(wait):
		}
		pctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), passTimeout)
		err := pass(pctx)
		cancel()
		if err != nil && ctx.Err() == nil {
			klog.ErrorS(err, "Service allocation repair pass failed")
		}
	}
}
