package worker

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

// TestRunRetriesErrorsAndDelays drives Run with a sync that fails once,
// asks for one delayed retry, then succeeds: every key ends done.
func TestRunRetriesErrorsAndDelays(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	q := NewQueue[string]("test")
	var mu sync.Mutex
	calls := map[string]int{}
	done := make(chan string, 10)
	sync := func(_ context.Context, key string) (time.Duration, error) {
		mu.Lock()
		calls[key]++
		n := calls[key]
		mu.Unlock()
		switch {
		case key == "fails" && n == 1:
			return 0, errors.New("boom")
		case key == "later" && n == 1:
			return time.Millisecond, nil
		}
		done <- key
		return 0, nil
	}
	go Run(ctx, q, 2, sync)
	q.Add("fails")
	q.Add("later")
	q.Add("plain")
	got := map[string]bool{}
	for len(got) < 3 {
		select {
		case k := <-done:
			got[k] = true
		case <-time.After(10 * time.Second):
			t.Fatalf("keys done: %v", got)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if calls["fails"] != 2 || calls["later"] != 2 || calls["plain"] != 1 {
		t.Fatalf("calls %v", calls)
	}
}
