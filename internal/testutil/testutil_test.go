package testutil

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"
)

func TestPollReturnsOnceCheckPasses(t *testing.T) {
	calls := 0
	err := Poll(10*time.Second, func() error {
		calls++
		if calls < 3 {
			return errors.New("not yet")
		}
		return nil
	})
	if err != nil || calls != 3 {
		t.Fatalf("Poll = %v after %d calls, want nil after 3", err, calls)
	}
}

func TestPollTimesOutWithTheLastError(t *testing.T) {
	calls := 0
	err := Poll(20*time.Millisecond, func() error {
		calls++
		return fmt.Errorf("state %d", calls)
	})
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("state %d", calls)) || calls < 2 {
		t.Fatalf("Poll = %v after %d calls, want the last state after several calls", err, calls)
	}
}

// fakeTB records a Fatal and ends its goroutine, as testing.T does.
type fakeTB struct {
	testing.TB
	msg string
}

func (f *fakeTB) Helper() {}
func (f *fakeTB) Fatal(args ...any) {
	f.msg = fmt.Sprint(args...)
	runtime.Goexit()
}
func (f *fakeTB) Fatalf(format string, args ...any) {
	f.msg = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

// fails runs body with a fakeTB and returns what it failed with ("" if not).
func fails(body func(tb testing.TB)) string {
	f := &fakeTB{}
	done := make(chan struct{})
	go func() { defer close(done); body(f) }()
	<-done
	return f.msg
}

func TestHelpersFailTheTestInsteadOfPanicking(t *testing.T) {
	if msg := fails(func(tb testing.TB) { Eventually(tb, 10*time.Millisecond, "the moon", func() bool { return false }) }); !strings.Contains(msg, "the moon") {
		t.Errorf("Eventually failed with %q, want it to name what it waited for", msg)
	}
	if msg := fails(func(tb testing.TB) {
		EventuallyErr(tb, 10*time.Millisecond, "three", func() error { return errors.New("got 2, want 3") })
	}); !strings.Contains(msg, "three") || !strings.Contains(msg, "got 2, want 3") {
		t.Errorf("EventuallyErr failed with %q, want what and the last error", msg)
	}
	if msg := fails(func(tb testing.TB) { Get(1, errors.New("boom"))(tb) }); msg != "boom" {
		t.Errorf("Get failed with %q, want boom", msg)
	}
	if msg := fails(func(tb testing.TB) { NoErr(tb, errors.New("bang")) }); msg != "bang" {
		t.Errorf("NoErr failed with %q, want bang", msg)
	}
	if msg := fails(func(tb testing.TB) {
		if v := Get(7, nil)(tb); v != 7 {
			tb.Fatalf("Get returned %d", v)
		}
		NoErr(tb, nil)
		Eventually(tb, time.Second, "true", func() bool { return true })
	}); msg != "" {
		t.Errorf("passing helpers failed: %q", msg)
	}
}
