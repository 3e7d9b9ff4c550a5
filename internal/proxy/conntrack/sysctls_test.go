package conntrack

import (
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestSysctlsPlan(t *testing.T) {
	def := Sysctls{MaxPerCore: 32768, Min: 131072, TCPEstablishedTimeout: 24 * time.Hour, TCPCloseWaitTimeout: time.Hour}
	nf := "proc/sys/net/netfilter/"
	for name, tc := range map[string]struct {
		s    Sysctls
		cpus int
		want []Setting
	}{
		"kube-proxy defaults, 2 CPUs: min wins": {def, 2, []Setting{{nf + "nf_conntrack_max", 131072}, {hashsizePath, 32768},
			{nf + "nf_conntrack_tcp_timeout_established", 86400}, {nf + "nf_conntrack_tcp_timeout_close_wait", 3600}}},
		"8 CPUs: per core": {Sysctls{MaxPerCore: 32768, Min: 131072}, 8, []Setting{{nf + "nf_conntrack_max", 262144}, {hashsizePath, 65536}}},
		"capped at 1Mi":    {Sysctls{MaxPerCore: 32768}, 64, []Setting{{nf + "nf_conntrack_max", 1 << 20}, {hashsizePath, 1 << 18}}},
		"maxPerCore 0 leaves the limit": {Sysctls{Min: 131072, TCPBeLiberal: true, UDPTimeout: 30 * time.Second, UDPStreamTimeout: 2 * time.Minute}, 4,
			[]Setting{{nf + "nf_conntrack_tcp_be_liberal", 1}, {nf + "nf_conntrack_udp_timeout", 30}, {nf + "nf_conntrack_udp_timeout_stream", 120}}},
		"zero: nothing": {Sysctls{}, 4, nil},
	} {
		if got := tc.s.Plan(tc.cpus); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: %v, want %v", name, got, tc.want)
		}
	}
}

func writeFiles(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for p, v := range files {
		path := filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(v), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestSetSysctls(t *testing.T) {
	root := t.TempDir()
	nf := "proc/sys/net/netfilter/"
	writeFiles(t, root, map[string]string{"sys/devices/system/cpu/online": "0-3,6\n", hashsizePath: "65536\n",
		nf + "nf_conntrack_max": "65536\n", nf + "nf_conntrack_tcp_timeout_established": "432000\n"})
	if err := SetSysctls(root, Sysctls{MaxPerCore: 32768, TCPEstablishedTimeout: 24 * time.Hour}); err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]string{nf + "nf_conntrack_max": "163840", hashsizePath: "65536",
		nf + "nf_conntrack_tcp_timeout_established": "86400"} {
		if got, _ := os.ReadFile(filepath.Join(root, p)); strings.TrimSpace(string(got)) != want {
			t.Errorf("%s = %q, want %s", p, got, want)
		}
	}
	// The hash size is grown, never shrunk; without it the max is an error.
	writeFiles(t, root, map[string]string{hashsizePath: "1000"})
	if err := SetSysctls(root, Sysctls{MaxPerCore: 32768}); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(root, hashsizePath)); string(got) != "40960" {
		t.Errorf("hashsize %q, want 40960", got)
	}
	if err := os.Remove(filepath.Join(root, hashsizePath)); err != nil {
		t.Fatal(err)
	}
	if err := SetSysctls(root, Sysctls{MaxPerCore: 32768}); err == nil {
		t.Error("no hashsize file: no error")
	}
}

func TestNumCPU(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, map[string]string{"sys/devices/system/cpu/online": "0-1,4-7,9\n"})
	if n := NumCPU(root); n != 7 {
		t.Errorf("NumCPU %d, want 7", n)
	}
}

// TestSetSysctlsOutsideTheHostNamespace: the table size is read-only
// outside the host's network namespace (EACCES, even for root): it is
// skipped and the timeouts are still set; other write errors still fail.
func TestSetSysctlsOutsideTheHostNamespace(t *testing.T) {
	root := t.TempDir()
	nf := "proc/sys/net/netfilter/"
	writeFiles(t, root, map[string]string{"sys/devices/system/cpu/online": "0-1\n", hashsizePath: "65536\n",
		nf + "nf_conntrack_max": "262144\n", nf + "nf_conntrack_udp_timeout": "30\n"})
	defer func(w func(string, []byte, os.FileMode) error) { writeFile = w }(writeFile)
	failOn := nf + "nf_conntrack_max"
	writeFile = func(path string, b []byte, mode os.FileMode) error {
		if strings.HasSuffix(path, failOn) {
			return &os.PathError{Op: "open", Path: path, Err: fs.ErrPermission}
		}
		return os.WriteFile(path, b, mode)
	}
	if err := SetSysctls(root, Sysctls{MaxPerCore: 32768, Min: 131072, UDPTimeout: time.Minute}); err != nil {
		t.Fatalf("read-only table size: %v", err)
	}
	if got, _ := os.ReadFile(filepath.Join(root, nf+"nf_conntrack_udp_timeout")); string(got) != "60" {
		t.Errorf("udp timeout %q, want 60", got)
	}
	failOn = nf + "nf_conntrack_udp_timeout"
	if err := SetSysctls(root, Sysctls{UDPTimeout: 2 * time.Minute}); err == nil {
		t.Error("a read-only timeout: no error")
	}
}
