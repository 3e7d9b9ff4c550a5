package periodic

import (
	"context"
	"time"

	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
)

// Run calls sync every interval, and whenever kick fires (nil: never),
// until ctx ends, logging failures with msg.
func Run(ctx context.Context, clk clock.WithTicker, interval time.Duration, kick <-chan struct{}, msg string, sync func(context.Context) error) {
	t := clk.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C():
		case <-kick:
		}
		if err := sync(ctx); err != nil {
			klog.ErrorS(err, msg)
		}
	}
}
