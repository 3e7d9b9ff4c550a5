package bench

import (
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
