package bench

import (
	"fmt"
	"os"
	"runtime/pprof"
	"strings"
	"time"
)

// rssBytes reads VmRSS of a process from /proc.
func rssBytes(pid int) (int64, error) { return statusBytes(pid, "VmRSS") }

// statusBytes reads one kB field (VmRSS, RssAnon, …) of a process's
// /proc status.
func statusBytes(pid int, field string) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, field+":") {
			var kb int64
			_, err := fmt.Sscanf(strings.TrimPrefix(l, field+":"), "%d", &kb)
			return kb * 1024, err
		}
	}
	return 0, fmt.Errorf("no %s for pid %d", field, pid)
}

// rssDetail renders RssAnon, RssFile and the peak (VmHWM) of this process.
func rssDetail() string {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return err.Error()
	}
	var parts []string
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "RssAnon:") || strings.HasPrefix(l, "RssFile:") || strings.HasPrefix(l, "VmHWM:") {
			parts = append(parts, strings.Join(strings.Fields(l), " "))
		}
	}
	return strings.Join(parts, ", ")
}

// startProfiles starts a CPU profile and arranges a heap profile; stop
// ends and writes them.
func startProfiles(cpu, mem string) (stop func(), err error) {
	var cpuFile *os.File
	if cpu != "" {
		if cpuFile, err = os.Create(cpu); err != nil {
			return nil, err
		}
		if err := pprof.StartCPUProfile(cpuFile); err != nil {
			return nil, err
		}
	}
	return func() {
		if cpuFile != nil {
			pprof.StopCPUProfile()
			_ = cpuFile.Close()
		}
		if mem != "" {
			if f, err := os.Create(mem); err == nil {
				_ = pprof.WriteHeapProfile(f)
				_ = f.Close()
			}
		}
	}, nil
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
