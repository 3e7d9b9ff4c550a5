package bench

import (
	"fmt"
	"strings"
)

// cpuMeter reads the CPU time named processes used between start and
// report (/proc/<pid>/stat, user + system), so that a bench can print what
// a phase cost next to how long it took: wall time follows the load of
// a 2-core machine, CPU per object much less.
type cpuMeter struct {
	names []string
	pids  []int
	start []float64
}

// startCPUMeter reads each process's CPU time now; pids pairs with names.
func startCPUMeter(names []string, pids []int) (*cpuMeter, error) {
	m := &cpuMeter{names: names, pids: pids}
	for _, pid := range pids {
		s, err := cpuSeconds(pid)
		if err != nil {
			return nil, err
		}
		m.start = append(m.start, s)
	}
	return m, nil
}

// used is the CPU time (s) each process used since start.
func (m *cpuMeter) used() ([]float64, error) {
	out := make([]float64, len(m.pids))
	for i, pid := range m.pids {
		s, err := cpuSeconds(pid)
		if err != nil {
			return nil, err
		}
		out[i] = s - m.start[i]
	}
	return out, nil
}

// describe is "server 133.20 s (13.32 ms per pod), agent 20.10 s (2.01 ms
// per pod)": the CPU each process used (from used), and per n objects.
func (m *cpuMeter) describe(used []float64, n int, object string) string {
	parts := make([]string, len(used))
	for i, u := range used {
		parts[i] = fmt.Sprintf("%s %.2f s (%.2f ms per %s)", m.names[i], u, perObjectMS(u, n), object)
	}
	return strings.Join(parts, ", ")
}

func perObjectMS(seconds float64, n int) float64 { return seconds * 1000 / float64(max(n, 1)) }
