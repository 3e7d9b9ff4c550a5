package kubeproxyconfig

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func load(t *testing.T, data string) (*Settings, error) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "config.conf")
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := Load(path)
	if err != nil {
		return nil, err
	}
	s := FromFile(c)
	s.ApplyPlatformDefaults()
	return s, nil
}

const head = "apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\n"

// TestLoadLenient: as kube-proxy, a file that fails only the strict
// checks (unknown or duplicate fields) is decoded leniently.
func TestLoadLenient(t *testing.T) {
	s, err := load(t, head+"mode: ipvs\nbogusField: 1\nipvs:\n  syncPeriodd: 1s\n  scheduler: wlc\n  syncPeriod: 5s\n"+
		"clusterCIDR: 10.1.0.0/16\nclusterCIDR: 10.2.0.0/16\n")
	if err != nil {
		t.Fatal(err)
	}
	if s.Mode != "ipvs" || s.IPVS.Scheduler != "wlc" || s.SyncPeriod != 5*time.Second || s.MinSyncPeriod != 0 || s.ClusterCIDR != "10.2.0.0/16" {
		t.Errorf("lenient decoding: %+v", s)
	}
}

func TestLoadRejected(t *testing.T) {
	for name, data := range map[string]string{
		"not yaml":    "mode: [",
		"no kind":     "apiVersion: kubeproxy.config.k8s.io/v1alpha1\nmode: ipvs\n",
		"wrong kind":  "apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeletConfiguration\n",
		"wrong group": "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeProxyConfiguration\n",
		"wrong type":  head + "ipvs:\n  syncPeriod: [1]\n",
	} {
		if _, err := load(t, data); err == nil || !strings.Contains(err.Error(), "failed to decode") {
			t.Errorf("%s: %v, want a decoding error", name, err)
		}
	}
}

// TestDefaultsByBindAddress: an IPv6 bindAddress moves the default
// health and metrics addresses to IPv6; bare IPs get the default ports.
func TestDefaultsByBindAddress(t *testing.T) {
	s, err := load(t, head+"bindAddress: \"::\"\n")
	if err != nil {
		t.Fatal(err)
	}
	if s.HealthzBindAddress != "[::]:10256" || s.MetricsBindAddress != "[::1]:10249" {
		t.Errorf("healthz %q metrics %q", s.HealthzBindAddress, s.MetricsBindAddress)
	}
	s, err = load(t, head+"healthzBindAddress: 10.0.0.1\nmetricsBindAddress: \"::1\"\n")
	if err != nil {
		t.Fatal(err)
	}
	if s.HealthzBindAddress != "10.0.0.1:10256" || s.MetricsBindAddress != "[::1]:10249" {
		t.Errorf("healthz %q metrics %q", s.HealthzBindAddress, s.MetricsBindAddress)
	}
	if errs := s.Validate(); len(errs) != 0 {
		t.Errorf("invalid: %v", errs)
	}
}

// TestVersionedRoundTrip: Versioned puts the periods and masqueradeAll
// back where FromFile takes them from.
func TestVersionedRoundTrip(t *testing.T) {
	for _, mode := range []string{"iptables", "ipvs", "nftables"} {
		s, err := load(t, head+"mode: "+mode+"\n")
		if err != nil {
			t.Fatal(err)
		}
		s.SyncPeriod, s.MinSyncPeriod, s.MasqueradeAll = 7*time.Second, 3*time.Second, true
		c := s.Versioned()
		back := FromFile(&c)
		if back.SyncPeriod != s.SyncPeriod || back.MinSyncPeriod != s.MinSyncPeriod || !back.MasqueradeAll || c.Kind != "KubeProxyConfiguration" {
			t.Errorf("%s: %+v", mode, back)
		}
	}
}
