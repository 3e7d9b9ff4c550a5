package proxy

import (
	"testing"
	"time"
)

func TestMemoryReleaseAtMostEveryInterval(t *testing.T) {
	n := 0
	m := &MemoryRelease{release: func() { n++ }}
	t0 := time.Unix(1000, 0)
	for i, c := range []struct {
		at   time.Duration
		want bool
	}{{0, true}, {30 * time.Second, false}, {MemoryReleaseInterval - time.Second, false}, {MemoryReleaseInterval, true},
		{MemoryReleaseInterval + 30*time.Second, false}, {3 * MemoryReleaseInterval, true}} {
		if got := m.AfterFullSync(t0.Add(c.at)); got != c.want {
			t.Errorf("step %d (+%v): released %v, want %v", i, c.at, got, c.want)
		}
	}
	if n != 3 {
		t.Errorf("released %d times, want 3", n)
	}
}

func TestMemoryReleaseEveryFullSyncWhenSet(t *testing.T) {
	SetMemoryReleaseInterval(0)
	defer SetMemoryReleaseInterval(MemoryReleaseInterval)
	n := 0
	m := &MemoryRelease{release: func() { n++ }}
	t0 := time.Unix(1000, 0)
	for i, at := range []time.Duration{0, 30 * time.Second, 60 * time.Second} {
		if !m.AfterFullSync(t0.Add(at)) {
			t.Errorf("step %d: not released", i)
		}
	}
	if n != 3 {
		t.Errorf("released %d times, want 3", n)
	}
}
