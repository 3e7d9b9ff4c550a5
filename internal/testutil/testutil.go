// Package testutil holds the helpers tests across svcplane share: the one
// way to wait for a condition (Eventually, EventuallyErr, and Poll for a
// TestMain that has no t), the t-based forms of "this call must succeed"
// (Get, NoErr), SkipShort for tests that need a server, root or
// binaries, and CaptureKlog for tests of what gets logged.
//
// Guarantees: a failing helper fails the calling test with t.Fatal (never a
// panic, so one failure does not abort the package and skip its cleanup);
// waits poll with a backoff from 1 ms up to 100 ms on the real clock, never
// a sleep in the test body. Tests driven by a fake clock use Eventually only
// to observe that a goroutine registered a timer (clock.HasWaiters), and
// step the clock themselves.
package testutil

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"testing"
	"time"

	"k8s.io/klog/v2"

	"k8s.io/apimachinery/pkg/util/wait"
)

// errNotYet is what a false condition reports when Eventually gives up.
var errNotYet = errors.New("condition never held")

// Poll calls check until it returns nil or timeout passes; it returns nil,
// or check's last error prefixed with how long it waited. The first call is
// immediate; then the interval grows from 1 ms to 100 ms.
func Poll(timeout time.Duration, check func() error) error {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	var last error
	backoff := wait.Backoff{Duration: time.Millisecond, Factor: 2, Cap: 100 * time.Millisecond, Steps: 10}
	err := backoff.DelayFunc().Until(ctx, true, true, func(context.Context) (bool, error) {
		last = check()
		return last == nil, nil
	})
	if err == nil {
		return nil
	}
	if last == nil { // timed out between a failing check and the next
		last = err
	}
	return &timeoutError{after: timeout, last: last}
}

type timeoutError struct {
	after time.Duration
	last  error
}

func (e *timeoutError) Error() string { return "after " + e.after.String() + ": " + e.last.Error() }
func (e *timeoutError) Unwrap() error { return e.last }

// Eventually polls cond until it returns true; if timeout passes first it
// fails t with "timed out waiting for <what>". cond may call t.Fatal itself
// for an error that no wait will cure.
func Eventually(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	if err := Poll(timeout, func() error {
		if cond() {
			return nil
		}
		return errNotYet
	}); err != nil {
		t.Fatalf("timed out after %v waiting for %s", timeout, what)
	}
}

// EventuallyErr polls check until it returns nil; if timeout passes first
// it fails t naming what and check's last error, so the message says what
// the test last saw (return e.g. fmt.Errorf("got %q, want %q", got, want)).
func EventuallyErr(t testing.TB, timeout time.Duration, what string, check func() error) {
	t.Helper()
	if err := Poll(timeout, check); err != nil {
		t.Fatalf("timed out waiting for %s: %v", what, err)
	}
}

// Get returns a function that returns v, or fails the test it is given
// with err: `svc := testutil.Get(c.Create(ctx, s, opts))(t)` uses a call's
// result inline (Go lets a two-value call be the only argument of a call,
// hence the second pair of parentheses for t).
func Get[T any](v T, err error) func(testing.TB) T {
	return func(t testing.TB) T {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}

// NoErr fails t with err unless err is nil.
func NoErr(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// SkipShort skips the test under -short, giving why (what the test needs
// that `go test -short` promises not to use).
func SkipShort(t testing.TB, why string) {
	t.Helper()
	if testing.Short() {
		t.Skip("skipped under -short: " + why)
	}
}

// CaptureKlog sends klog's output (and only there, not to stderr) to the
// returned buffer until the test ends; klog.Flush before reading it.
func CaptureKlog(t testing.TB) *bytes.Buffer {
	t.Helper()
	var buf bytes.Buffer
	fs := flag.NewFlagSet("klog", flag.ContinueOnError)
	klog.InitFlags(fs)
	_ = fs.Set("logtostderr", "false")
	_ = fs.Set("alsologtostderr", "false")
	klog.SetOutput(&buf)
	t.Cleanup(func() { klog.SetOutput(nil) })
	return &buf
}
