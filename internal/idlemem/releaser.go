package idlemem

import (
	"context"
	"runtime/debug"
	"runtime/metrics"
	"time"

	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	"github.com/svcplane/svcplane/internal/bootstrap/periodic"
)

// Stats is what Releaser reads of the heap.
type Stats struct {
	// Allocated is the bytes allocated since the process started.
	Allocated uint64
	// Live is the heap the last collection found live.
	Live uint64
	// Resident is the heap's memory not returned to the OS: objects,
	// live or garbage, and free or unused span space.
	Resident uint64
}

// Releaser checks every Interval; see the package comment.
type Releaser struct {
	// Interval between checks.
	Interval time.Duration
	// QuietBytes: an interval that allocated less counts as quiet.
	QuietBytes uint64
	// SlackBytes: release when the resident heap exceeds the live one by
	// more than this.
	SlackBytes uint64

	Clock   clock.WithTicker
	Read    func() Stats
	Release func()

	// kept is the slack right after the last release.
	kept uint64
}

// New is a Releaser over the Go runtime: a check every 2 s, quiet below
// 1 MB/s allocated (an idle server allocates ~0.5 MB/s), release above
// 16 MB of slack. Checks are cheap (a runtime/metrics read), so they come
// often enough to hand a burst's garbage back within seconds of its end.
func New() *Releaser {
	return &Releaser{
		Interval:   2 * time.Second,
		QuietBytes: 2 << 20,
		SlackBytes: 16 << 20,
		Clock:      clock.RealClock{},
		Read:       ReadRuntime,
		Release:    debug.FreeOSMemory,
	}
}

// Run checks until ctx ends.
func (r *Releaser) Run(ctx context.Context) {
	last := r.Read()
	periodic.Run(ctx, r.Clock, r.Interval, nil, "Checking idle heap memory", func(context.Context) error {
		last = r.check(last)
		return nil
	})
}

// check releases if the interval since last was quiet and the slack has
// grown by SlackBytes over what the last release could not return (the
// free space inside spans that still hold live objects), and returns
// the stats the next check compares with.
func (r *Releaser) check(last Stats) Stats {
	now := r.Read()
	quiet := now.Allocated-last.Allocated < r.QuietBytes
	if !quiet || slack(now) < r.kept+r.SlackBytes {
		return now
	}
	r.Release()
	after := r.Read()
	r.kept = slack(after)
	klog.V(2).InfoS("Released idle heap memory", "residentBefore", now.Resident, "residentAfter", after.Resident, "live", after.Live)
	return after
}

// slack is the resident heap not in live objects.
func slack(s Stats) uint64 {
	if s.Resident < s.Live {
		return 0
	}
	return s.Resident - s.Live
}

var runtimeMetrics = []string{
	"/gc/heap/allocs:bytes",
	"/gc/heap/live:bytes",
	"/memory/classes/heap/objects:bytes",
	"/memory/classes/heap/unused:bytes",
	"/memory/classes/heap/free:bytes",
}

// ReadRuntime reads Stats from runtime/metrics.
func ReadRuntime() Stats {
	samples := make([]metrics.Sample, len(runtimeMetrics))
	for i, name := range runtimeMetrics {
		samples[i].Name = name
	}
	metrics.Read(samples)
	v := func(i int) uint64 {
		if samples[i].Value.Kind() != metrics.KindUint64 {
			return 0
		}
		return samples[i].Value.Uint64()
	}
	return Stats{Allocated: v(0), Live: v(1), Resident: v(2) + v(3) + v(4)}
}
