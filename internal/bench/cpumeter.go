package bench

import (
	"fmt"
	"io"
	"strings"
	"time"
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

// settle waits, interval by interval, until the processes read measures
// (their CPU seconds together) use less than quiet cores over one interval,
// or until timeout: a server side just past /readyz still builds its
// OpenAPI documents and fills its caches, and a bench that measured it
// then would count that work against the requests. It returns the time
// waited, whether the processes settled, and their use (cores) over the
// last interval.
func settle(read func() (float64, error), wait func(time.Duration), interval time.Duration, quiet float64, timeout time.Duration) (time.Duration, bool, float64, error) {
	prev, err := read()
	if err != nil {
		return 0, false, 0, err
	}
	var waited time.Duration
	cores := 0.0
	for waited < timeout {
		wait(interval)
		waited += interval
		cur, err := read()
		if err != nil {
			return waited, false, 0, err
		}
		if cores = (cur - prev) / interval.Seconds(); cores < quiet {
			return waited, true, cores, nil
		}
		prev = cur
	}
	return waited, false, cores, nil
}

// settleProcs is settle over pids in real time, a second at a time,
// less than 0.15 of a core, at most a minute; it says on out what it saw.
func settleProcs(out io.Writer, pids []int) error {
	m, err := startCPUMeter(make([]string, len(pids)), pids)
	if err != nil {
		return err
	}
	read := func() (float64, error) {
		used, err := m.used()
		total := 0.0
		for _, u := range used {
			total += u
		}
		return total, err
	}
	waited, ok, cores, err := settle(read, time.Sleep, time.Second, 0.15, time.Minute)
	if err != nil {
		return err
	}
	if ok {
		fmt.Fprintf(out, "server side settled (%.2f cores over 1 s) %.0fs after /readyz\n", cores, waited.Seconds())
	} else {
		fmt.Fprintf(out, "server side still busy %.0fs after /readyz (%.2f cores over the last second); measuring anyway\n", waited.Seconds(), cores)
	}
	return nil
}
