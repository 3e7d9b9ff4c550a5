package conntrack

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"k8s.io/klog/v2"
)

// Sysctls is kube-proxy's conntrack section: the netfilter conntrack
// limits and timeouts it sets at start. Zero values leave the kernel's.
type Sysctls struct {
	// MaxPerCore × CPUs (at least Min, at most 1Mi) is nf_conntrack_max;
	// MaxPerCore 0 leaves it (and Min is unused).
	MaxPerCore, Min       int32
	TCPEstablishedTimeout time.Duration
	TCPCloseWaitTimeout   time.Duration
	// TCPBeLiberal sets nf_conntrack_tcp_be_liberal to 1 (false leaves it).
	TCPBeLiberal     bool
	UDPTimeout       time.Duration
	UDPStreamTimeout time.Duration
}

// maxLimit caps nf_conntrack_max on machines with many cores, as
// kube-proxy does.
const maxLimit = 1 << 20

// Setting is one value to write under the sysfs/procfs root.
type Setting struct {
	Path  string
	Value int
}

// hashsizePath is the conntrack hash table's size; kube-proxy grows it to
// a quarter of nf_conntrack_max when it is smaller.
const hashsizePath = "sys/module/nf_conntrack/parameters/hashsize"

// Plan is what SetSysctls writes, in order, for a machine with numCPU
// CPUs (no I/O). The hash size comes after nf_conntrack_max and is only
// ever grown.
func (s Sysctls) Plan(numCPU int) []Setting {
	var out []Setting
	add := func(name string, v int) {
		out = append(out, Setting{"proc/sys/net/netfilter/" + name, v})
	}
	if s.MaxPerCore > 0 {
		max := int(s.MaxPerCore) * numCPU
		switch {
		case max > maxLimit:
			max = maxLimit
		case max <= int(s.Min):
			max = int(s.Min)
		}
		if max > 0 {
			add("nf_conntrack_max", max)
			out = append(out, Setting{hashsizePath, max / 4})
		}
	}
	seconds := func(name string, d time.Duration) {
		if d > 0 {
			add(name, int(d/time.Second))
		}
	}
	seconds("nf_conntrack_tcp_timeout_established", s.TCPEstablishedTimeout)
	seconds("nf_conntrack_tcp_timeout_close_wait", s.TCPCloseWaitTimeout)
	if s.TCPBeLiberal {
		add("nf_conntrack_tcp_be_liberal", 1)
	}
	seconds("nf_conntrack_udp_timeout", s.UDPTimeout)
	seconds("nf_conntrack_udp_timeout_stream", s.UDPStreamTimeout)
	return out
}

// writeFile writes a sysctl (a variable for the tests: root may write
// any file, so a read-only one cannot be made).
var writeFile = os.WriteFile

// hostOnly are the settings only the host's (initial) network namespace
// may write: elsewhere they are read-only views of the host's.
var hostOnly = map[string]bool{hashsizePath: true, "proc/sys/net/netfilter/nf_conntrack_max": true}

// SetSysctls applies s under root ("/" on the node): each value that
// differs is written; the hash size only when smaller than planned. The
// first failure is returned, as kube-proxy fails its start on it — except
// a permission error on the table size (nf_conntrack_max, hashsize),
// which only the host's network namespace may set: a proxy in another
// one (a simulated node) logs it and goes on, where kube-proxy would stop
// (kind sets conntrack.maxPerCore: 0 to avoid that).
func SetSysctls(root string, s Sysctls) error {
	for _, set := range s.Plan(NumCPU(root)) {
		path := filepath.Join(root, set.Path)
		cur, err := readInt(path)
		if set.Path == hashsizePath {
			if err != nil {
				return fmt.Errorf("could not set conntrack parameters from kube-proxy configuration: %w", err)
			}
			if cur >= set.Value {
				continue
			}
		} else if err == nil && cur == set.Value {
			continue
		}
		if err := writeFile(path, []byte(strconv.Itoa(set.Value)), 0o640); err != nil {
			if hostOnly[set.Path] && errors.Is(err, fs.ErrPermission) {
				klog.InfoS("Not setting the conntrack table size: only the host's network namespace may (set conntrack.maxPerCore: 0 to skip it)",
					"entry", strings.TrimPrefix(set.Path, "proc/sys/"), "current", cur, "wanted", set.Value)
				continue
			}
			return fmt.Errorf("could not set conntrack parameters from kube-proxy configuration: %w", err)
		}
		klog.InfoS("Set sysctl", "entry", strings.TrimPrefix(set.Path, "proc/sys/"), "value", set.Value)
	}
	return nil
}

// NumCPU counts the online CPUs in root's sys/devices/system/cpu/online
// (not runtime.NumCPU, which a cpuset limits), falling back to
// runtime.NumCPU.
func NumCPU(root string) int {
	data, err := os.ReadFile(filepath.Join(root, "sys/devices/system/cpu/online"))
	if err != nil {
		return runtime.NumCPU()
	}
	n := 0
	for _, r := range strings.Split(strings.TrimSpace(string(data)), ",") {
		lo, hi, isRange := strings.Cut(r, "-")
		a, errA := strconv.Atoi(lo)
		b := a
		var errB error
		if isRange {
			b, errB = strconv.Atoi(hi)
		}
		if errA != nil || errB != nil || b < a {
			return runtime.NumCPU()
		}
		n += b - a + 1
	}
	if n < 1 {
		return runtime.NumCPU()
	}
	return n
}

func readInt(path string) (int, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(strings.TrimSpace(string(data)))
}
