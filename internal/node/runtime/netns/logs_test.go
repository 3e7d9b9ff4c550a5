package netns

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/clock"
	clocktesting "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"
)

func TestLogsOptions(t *testing.T) {
	clk := clocktesting.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	b := newLogBuf(clk)
	_, _ = b.Write([]byte("one\ntw"))
	clk.Step(10 * time.Second)
	_, _ = b.Write([]byte("o\nthree\n"))
	clk.Step(10 * time.Second)
	_, _ = b.Write([]byte("partial"))
	get := func(o corev1.PodLogOptions) string {
		var out bytes.Buffer
		if err := writeLogs(context.Background(), b, &o, &out); err != nil {
			t.Fatal(err)
		}
		return out.String()
	}
	for _, c := range []struct {
		name string
		opts corev1.PodLogOptions
		want string
	}{
		{"all (no partial line while running)", corev1.PodLogOptions{}, "one\ntwo\nthree\n"},
		{"tail", corev1.PodLogOptions{TailLines: ptr.To[int64](2)}, "two\nthree\n"},
		{"limit", corev1.PodLogOptions{LimitBytes: ptr.To[int64](6)}, "one\ntw"},
		{"since seconds", corev1.PodLogOptions{SinceSeconds: ptr.To[int64](15)}, "two\nthree\n"},
		{"since time", corev1.PodLogOptions{SinceTime: &metav1.Time{Time: clk.Now().Add(-5 * time.Second)}}, ""},
		{"last line", corev1.PodLogOptions{TailLines: ptr.To[int64](1)}, "three\n"},
	} {
		if got := get(c.opts); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
	if got := get(corev1.PodLogOptions{Timestamps: true, TailLines: ptr.To[int64](1)}); got != "2026-01-01T00:00:10Z three\n" {
		t.Errorf("timestamps: %q", got)
	}
	b.close()
	if got := get(corev1.PodLogOptions{TailLines: ptr.To[int64](1)}); got != "partial" {
		t.Errorf("an ended run's partial last line: %q", got)
	}
}

func TestLogsFollowUntilTheRunEnds(t *testing.T) {
	b := newLogBuf(clock.RealClock{})
	_, _ = b.Write([]byte("a\n"))
	r, w := newPipe()
	done := make(chan error)
	go func() { done <- writeLogs(context.Background(), b, &corev1.PodLogOptions{Follow: true}, w) }()
	if line := r.next(t); line != "a\n" {
		t.Fatalf("first %q", line)
	}
	_, _ = b.Write([]byte("b\n"))
	if line := r.next(t); line != "b\n" {
		t.Fatalf("followed %q", line)
	}
	b.close()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("follow did not end with the run")
	}
}

func TestLogsDropOldestBeyondTheCap(t *testing.T) {
	b := newLogBuf(clock.RealClock{})
	line := strings.Repeat("x", 1023) + "\n"
	for i := 0; i < 2*maxLogBytes/1024; i++ {
		_, _ = b.Write([]byte(line))
	}
	lines, _, _ := b.snapshot()
	if n := len(lines) * 1024; n > maxLogBytes {
		t.Fatalf("kept %d bytes, cap %d", n, maxLogBytes)
	}
}

// pipe hands each Write to the reader.
type pipe struct{ c chan string }

func newPipe() (*pipe, *pipe) { p := &pipe{c: make(chan string, 16)}; return p, p }

func (p *pipe) Write(b []byte) (int, error) { p.c <- string(b); return len(b), nil }

func (p *pipe) next(t *testing.T) string {
	t.Helper()
	select {
	case s := <-p.c:
		return s
	case <-time.After(5 * time.Second):
		t.Fatal("no log line")
		return ""
	}
}
