package bench

import (
	"os"
	"testing"
	"time"
)

// TestCPUSeconds: a process's CPU time from /proc/<pid>/stat grows while
// it computes; a missing process is an error.
func TestCPUSeconds(t *testing.T) {
	t0, err := cpuSeconds(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	x := 0
	for time.Now().Before(deadline) {
		for i := range 1_000_000 {
			x += i
		}
		if t1, err := cpuSeconds(os.Getpid()); err != nil || t1 > t0 {
			if err != nil {
				t.Fatal(err)
			}
			return
		}
	}
	t.Errorf("no CPU time counted after 10 s of computing (%d)", x)
}

func TestCPUSecondsMissing(t *testing.T) {
	if _, err := cpuSeconds(1 << 30); err == nil {
		t.Error("no error for a missing process")
	}
}
