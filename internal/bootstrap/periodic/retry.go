package periodic

import (
	"context"
	"time"

	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
)

// Retry backoff bounds: start-up steps on a shared etcd meet other servers'
// writes and brief etcd trouble, both gone within seconds.
const (
	retryFirst = 100 * time.Millisecond
	retryMax   = 5 * time.Second
)

// Until calls sync until it succeeds, waiting 100 ms after the first
// failure and doubling up to 5 s, and returns nil then, or ctx's error if
// ctx ends first. Failures are logged at info level with msg: a post-start
// hook that retries must not kill the server, nor alarm its reader, for
// what the next attempt fixes.
func Until(ctx context.Context, clk clock.Clock, msg string, sync func(context.Context) error) error {
	wait := retryFirst
	for {
		err := sync(ctx)
		if err == nil {
			return nil
		}
		klog.InfoS(msg+"; retrying", "err", err, "in", wait)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-clk.After(wait):
		}
		wait = min(2*wait, retryMax)
	}
}
