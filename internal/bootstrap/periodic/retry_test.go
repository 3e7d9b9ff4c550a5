package periodic

import (
	"context"
	"errors"
	"testing"
	"time"

	testingclock "k8s.io/utils/clock/testing"

	"github.com/svcplane/svcplane/internal/testutil"
)

func TestUntilRetriesWithBackoffUntilSuccess(t *testing.T) {
	clk := testingclock.NewFakeClock(time.Unix(0, 0))
	calls := make(chan int, 10)
	n := 0
	done := make(chan error, 1)
	go func() {
		done <- Until(context.Background(), clk, "test", func(context.Context) error {
			n++
			calls <- n
			if n < 4 {
				return errors.New("transient")
			}
			return nil
		})
	}()
	// Failures 1..3 wait 100, 200, 400 ms: each step lets one more call in.
	// (HasWaiters is polled: the goroutine registers its timer on its own.)
	for i, wait := range []time.Duration{100, 200, 400} {
		<-calls
		testutil.Eventually(t, 10*time.Second, "the retry to wait on its backoff", clk.HasWaiters)
		clk.Step(wait*time.Millisecond - time.Nanosecond)
		if !clk.HasWaiters() {
			t.Fatalf("retry %d was released before its %v backoff", i+1, wait*time.Millisecond)
		}
		clk.Step(time.Nanosecond)
	}
	<-calls
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

func TestUntilStopsWithContext(t *testing.T) {
	clk := testingclock.NewFakeClock(time.Unix(0, 0))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := Until(ctx, clk, "test", func(context.Context) error { return errors.New("down") })
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want context.Canceled", err)
	}
}
