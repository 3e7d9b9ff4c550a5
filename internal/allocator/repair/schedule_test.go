package repair

import (
	"context"
	"testing"
	"time"

	testingclock "k8s.io/utils/clock/testing"

	"github.com/svcplane/svcplane/internal/testutil"
)

// TestRunPassesFastThenInterval: after the first pass (the caller's), the
// next Threshold-1 passes come FastInterval apart, then one per interval.
func TestRunPassesFastThenInterval(t *testing.T) {
	start := time.Unix(0, 0)
	clk := testingclock.NewFakeClock(start)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	passes := make(chan time.Duration)
	go RunPasses(ctx, clk, 3*time.Minute, func(context.Context) error {
		passes <- clk.Since(start)
		return nil
	})
	want := []time.Duration{20 * time.Second, 40 * time.Second, 220 * time.Second, 400 * time.Second}
	for _, at := range want {
		// The loop registers its timer on its own goroutine.
		testutil.Eventually(t, 10*time.Second, "the loop to wait on its timer", clk.HasWaiters)
		clk.SetTime(start.Add(at - time.Nanosecond))
		if !clk.HasWaiters() {
			t.Fatalf("a pass ran before %v", at)
		}
		clk.SetTime(start.Add(at))
		if got := <-passes; got != at {
			t.Fatalf("pass at %v, want %v", got, at)
		}
	}
}

// TestRunPassesStopDuringAPass: a pass under way when ctx ends is not
// cancelled and finishes; RunPasses then returns without another pass.
func TestRunPassesStopDuringAPass(t *testing.T) {
	clk := testingclock.NewFakeClock(time.Unix(0, 0))
	ctx, cancel := context.WithCancel(context.Background())
	inPass, release := make(chan struct{}), make(chan struct{})
	passErr := make(chan error, 2)
	done := make(chan struct{})
	go func() {
		defer close(done)
		RunPasses(ctx, clk, time.Minute, func(pctx context.Context) error {
			close(inPass)
			<-release
			passErr <- pctx.Err()
			return pctx.Err()
		})
	}()
	testutil.Eventually(t, 10*time.Second, "the loop to wait on its timer", clk.HasWaiters)
	clk.Step(FastInterval)
	<-inPass
	cancel()
	close(release)
	<-done
	if err := <-passErr; err != nil {
		t.Errorf("the pass under way saw its context end: %v", err)
	}
	if len(passErr) != 0 {
		t.Errorf("a pass ran after the stop")
	}
}
