package idlemem

import (
	"context"
	"runtime"
	"sync"
	"testing"
	"time"

	testingclock "k8s.io/utils/clock/testing"
)

const mb = 1 << 20

// fakeHeap is a heap whose release returns the slack, as FreeOSMemory
// does: resident falls to live.
type fakeHeap struct {
	s        Stats
	releases int
	// fragments is the free space of spans that keep live objects,
	// which a release cannot return.
	fragments uint64
}

func (h *fakeHeap) read() Stats { return h.s }
func (h *fakeHeap) release() {
	h.releases++
	h.s.Resident = h.s.Live + h.fragments
}

func newFake() (*Releaser, *fakeHeap) {
	h := &fakeHeap{s: Stats{Allocated: 100 * mb, Live: 50 * mb, Resident: 50 * mb}}
	r := &Releaser{Interval: 10 * time.Second, QuietBytes: 10 * mb, SlackBytes: 16 * mb,
		Clock: testingclock.NewFakeClock(time.Now()), Read: h.read, Release: h.release}
	return r, h
}

func TestReleasesOncePerBurstWhenQuiet(t *testing.T) {
	r, h := newFake()
	last := h.read()
	steps := []struct {
		name         string
		alloc, grown uint64 // allocated in the interval; resident growth
		wantReleases int
	}{
		{"idle, no slack", 1 * mb, 0, 0},
		{"burst: much allocated, much resident", 200 * mb, 40 * mb, 0},
		{"still busy", 50 * mb, 0, 0},
		{"quiet after the burst: release", 2 * mb, 0, 1},
		{"quiet again: slack is gone", 2 * mb, 1 * mb, 1},
		{"quiet, small slack below the threshold", 2 * mb, 10 * mb, 1},
		{"quiet, slack grown over it", 2 * mb, 10 * mb, 2},
	}
	h.fragments = 20 * mb
	steps = append(steps, []struct {
		name         string
		alloc, grown uint64
		wantReleases int
	}{
		{"busy again, garbage", 100 * mb, 30 * mb, 2},
		{"quiet: release, 20 MB stay fragmented", 1 * mb, 0, 3},
		{"quiet: the fragments are no reason to release again", 1 * mb, 0, 3},
		{"quiet, 10 MB more garbage: still under the threshold", 1 * mb, 10 * mb, 3},
		{"quiet, 20 MB more over the fragments: release", 1 * mb, 10 * mb, 4},
	}...)
	for _, s := range steps {
		h.s.Allocated += s.alloc
		h.s.Resident += s.grown
		last = r.check(last)
		if h.releases != s.wantReleases {
			t.Fatalf("%s: %d releases, want %d", s.name, h.releases, s.wantReleases)
		}
	}
}

func TestRunChecksEveryInterval(t *testing.T) {
	r, h := newFake()
	clk := r.Clock.(*testingclock.FakeClock)
	var mu sync.Mutex
	released := make(chan struct{}, 1)
	r.Read = func() Stats { mu.Lock(); defer mu.Unlock(); return h.read() }
	r.Release = func() { mu.Lock(); h.release(); mu.Unlock(); released <- struct{}{} }
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { r.Run(ctx); close(done) }()
	for !clk.HasWaiters() {
		runtime.Gosched()
	}
	mu.Lock()
	h.s.Resident += 40 * mb // garbage of work done below the quiet rate
	mu.Unlock()
	clk.Step(r.Interval)
	<-released
	cancel()
	<-done
	if h.releases != 1 {
		t.Fatalf("%d releases, want 1", h.releases)
	}
}

func TestReadRuntimeIsConsistent(t *testing.T) {
	s := ReadRuntime()
	if s.Allocated == 0 || s.Resident == 0 || s.Live > s.Resident+64*mb {
		t.Fatalf("implausible runtime stats: %+v", s)
	}
}
