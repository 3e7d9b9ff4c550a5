package bench

import (
	"errors"
	"os"
	"regexp"
	"strconv"
	"testing"
	"time"
)

// TestCPUMeter: the description names each process with the CPU it used since
// the start and that CPU per object; a process gone is an error.
func TestCPUMeter(t *testing.T) {
	m, err := startCPUMeter([]string{"self"}, []int{os.Getpid()})
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(`^self ([0-9.]+) s \(([0-9.]+) ms per pod\)$`)
	x := 0
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); {
		for i := range 1_000_000 {
			x += i
		}
		used, err := m.used()
		if err != nil {
			t.Fatal(err)
		}
		got := m.describe(used, 10, "pod")
		parts := re.FindStringSubmatch(got)
		if parts == nil {
			t.Fatalf("report %q", got)
		}
		s, _ := strconv.ParseFloat(parts[1], 64)
		ms, _ := strconv.ParseFloat(parts[2], 64)
		if s > 0 {
			// s × 1000 ms / 10 pods; s is printed to 0.005 s, ms to 0.005.
			if want := s * 100; ms < want-0.51 || ms > want+0.51 {
				t.Fatalf("report %q: %v ms per pod, want about %v", got, ms, want)
			}
			return
		}
	}
	t.Errorf("no CPU counted after 10 s of computing (%d)", x)
}

func TestCPUMeterMissingProcess(t *testing.T) {
	if _, err := startCPUMeter([]string{"gone"}, []int{1 << 30}); err == nil {
		t.Error("no error for a missing process")
	}
}

// TestSettle: settle returns at the first interval under the threshold,
// with the time waited; it gives up at the timeout; a read error ends it.
func TestSettle(t *testing.T) {
	run := func(readings []float64, timeout time.Duration) (time.Duration, bool, float64, error) {
		i := 0
		read := func() (float64, error) {
			if i >= len(readings) {
				return 0, errors.New("gone")
			}
			i++
			return readings[i-1], nil
		}
		var slept time.Duration
		d, ok, cores, err := settle(read, func(d time.Duration) { slept += d }, time.Second, 0.15, timeout)
		if err == nil && slept != d {
			t.Errorf("slept %v, reported %v", slept, d)
		}
		return d, ok, cores, err
	}
	// 1.5 cores, then 0.9, then 0.1: settled after 3 s.
	if d, ok, cores, err := run([]float64{10, 11.5, 12.4, 12.5}, time.Minute); err != nil || !ok || d != 3*time.Second || cores < 0.09 || cores > 0.11 {
		t.Errorf("settling: %v %v %v %v", d, ok, cores, err)
	}
	// Busy throughout: gives up at the timeout with the last use.
	if d, ok, cores, err := run([]float64{0, 1, 2, 3}, 3*time.Second); err != nil || ok || d != 3*time.Second || cores != 1 {
		t.Errorf("busy: %v %v %v %v", d, ok, cores, err)
	}
	if _, _, _, err := run([]float64{0, 1}, time.Minute); err == nil {
		t.Error("no error when the process went away")
	}
}
