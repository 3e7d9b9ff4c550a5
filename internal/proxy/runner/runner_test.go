package runner

import (
	"context"
	"errors"
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"

	"github.com/svcplane/svcplane/internal/testutil"
)

func TestSchedule(t *testing.T) {
	t0 := time.Unix(1000, 0)
	s := schedule{minInterval: time.Second, maxInterval: 30 * time.Second, retryInterval: 5 * time.Second}
	at := func(d time.Duration) time.Time { return t0.Add(d) }
	expect := func(now time.Duration, wantRun, wantFull bool) {
		t.Helper()
		if run, full := s.due(at(now)); run != wantRun || (run && full != wantFull) {
			t.Fatalf("at %v: due=(%v,%v) want (%v,%v)", now, run, full, wantRun, wantFull)
		}
	}
	expect(0, true, true) // first sync is full
	s.started()
	s.finished(at(0), true, nil)
	expect(0, false, false)
	s.request()
	s.request()
	expect(500*time.Millisecond, false, false) // within minSyncPeriod
	if got := s.next(); !got.Equal(at(time.Second)) {
		t.Fatalf("next = %v", got)
	}
	expect(time.Second, true, false) // coalesced into one partial sync
	s.started()
	s.finished(at(time.Second), false, nil)
	expect(20*time.Second, false, false) // nothing pending
	expect(30*time.Second, true, true)   // periodic full resync
	s.started()
	s.request()
	s.finished(at(30*time.Second), true, errors.New("boom"))
	expect(31*time.Second, false, false) // waiting for retry despite pending
	expect(35*time.Second, true, true)   // retry is full
	s.started()
	s.finished(at(35*time.Second), true, nil)
	expect(35*time.Second, false, false)
}

// TestLoop drives the real loop with a fake clock: no sleeps, the test
// steps time and waits for the sync calls it expects.
func TestLoop(t *testing.T) {
	clk := clocktesting.NewFakeClock(time.Unix(1000, 0))
	calls := make(chan bool)
	r := New(func(full bool) error { calls <- full; return nil }, time.Second, 30*time.Second, 5*time.Second, clk)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go r.Loop(ctx)
	wait := func(want bool) {
		t.Helper()
		select {
		case full := <-calls:
			if full != want {
				t.Fatalf("sync full=%v, want %v", full, want)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("sync did not run")
		}
	}
	waitTimer := func() {
		t.Helper()
		testutil.Eventually(t, 10*time.Second, "the loop to wait on its timer", clk.HasWaiters)
	}
	wait(true)
	waitTimer()
	r.Run()
	r.Run()
	select {
	case <-calls:
		t.Fatal("sync ran before minSyncPeriod elapsed")
	case <-time.After(50 * time.Millisecond):
	}
	clk.Step(time.Second)
	wait(false)
	waitTimer()
	clk.Step(30 * time.Second)
	wait(true)
}
