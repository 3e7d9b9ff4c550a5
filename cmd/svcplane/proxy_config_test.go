package main

import (
	"os"
	"slices"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/yaml"

	"github.com/svcplane/svcplane/internal/proxy/conntrack"
)

// TestProxyKubeadmCommandLine: the command line and config.conf of the
// kube-proxy DaemonSet and ConfigMap kubeadm v1.36 writes
// (testdata/kubeadm-kube-proxy-config.conf: kubeadm's defaults, pod
// subnet 10.244.0.0/16; the kubelet expands $(NODE_NAME)).
func TestProxyKubeadmCommandLine(t *testing.T) {
	conf, err := os.ReadFile("testdata/kubeadm-kube-proxy-config.conf")
	if err != nil {
		t.Fatal(err)
	}
	o, s, err := parseProxy(t, string(conf), "--hostname-override=Kind-Worker")
	if err != nil {
		t.Fatal(err)
	}
	if errs := s.Validate(); len(errs) != 0 {
		t.Errorf("kubeadm's configuration invalid: %v", errs)
	}
	cfg := appConfig(s, o)
	if cfg.Mode != "iptables" || cfg.HostnameOverride != "kind-worker" || cfg.ClusterCIDR != "10.244.0.0/16" ||
		cfg.SyncPeriod != 30*time.Second || cfg.MinSyncPeriod != time.Second || cfg.MasqueradeAll ||
		cfg.NodePortAddresses != nil || cfg.HealthzBindAddress != "0.0.0.0:10256" || cfg.MetricsBindAddress != "127.0.0.1:10249" ||
		cfg.IPVSScheduler != "rr" || cfg.EnableProfiling {
		t.Errorf("app config %+v", cfg)
	}
	if want := (conntrack.Sysctls{MaxPerCore: 32768, Min: 131072, TCPEstablishedTimeout: 24 * time.Hour, TCPCloseWaitTimeout: time.Hour}); cfg.Conntrack == nil || *cfg.Conntrack != want {
		t.Errorf("conntrack sysctls %+v, want %+v", cfg.Conntrack, want)
	}
	cc := s.ClientConnection
	if cc.Kubeconfig != "/var/lib/kube-proxy/kubeconfig.conf" || cc.ContentType != "application/vnd.kubernetes.protobuf" || cc.QPS != 5 || cc.Burst != 10 {
		t.Errorf("client connection %+v", cc)
	}
	if *s.Conntrack.MaxPerCore != 32768 || *s.Conntrack.Min != 131072 || s.Conntrack.TCPEstablishedTimeout.Duration != 24*time.Hour ||
		s.Conntrack.TCPCloseWaitTimeout.Duration != time.Hour || s.Logging.Format != "text" || s.Logging.Verbosity != 0 {
		t.Errorf("defaults not applied: conntrack %+v logging %+v", s.Conntrack, s.Logging)
	}
}

const proxyConfigFile = `apiVersion: kubeproxy.config.k8s.io/v1alpha1
kind: KubeProxyConfiguration
mode: nftables
clusterCIDR: 10.244.0.0/16,fd00:10:244::/56
hostnameOverride: Node-A
healthzBindAddress: 0.0.0.0:20256
metricsBindAddress: 127.0.0.1
nodePortAddresses: ["192.168.0.0/16"]
clientConnection:
  kubeconfig: /etc/kube/proxy.conf
logging:
  verbosity: 3
  vmodule:
  - filePattern: proxier
    verbosity: 5
iptables:
  masqueradeAll: false
  syncPeriod: 10s
nftables:
  masqueradeAll: true
  minSyncPeriod: 2s
  syncPeriod: 1m
`

func TestProxyConfigFile(t *testing.T) {
	s := mustParseProxy(t, proxyConfigFile)
	if s.Mode != "nftables" || s.ClusterCIDR != "10.244.0.0/16,fd00:10:244::/56" || s.HostnameOverride != "Node-A" || !s.MasqueradeAll ||
		s.MinSyncPeriod != 2*time.Second || s.SyncPeriod != time.Minute || s.HealthzBindAddress != "0.0.0.0:20256" ||
		s.MetricsBindAddress != "127.0.0.1:10249" || s.ClientConnection.Kubeconfig != "/etc/kube/proxy.conf" ||
		!slices.Equal(s.NodePortAddresses, []string{"192.168.0.0/16"}) || s.Logging.Verbosity != 3 {
		t.Errorf("config not applied: %+v", s)
	}
}

// TestProxyConfigFileWins: with --config, kube-proxy ignores every flag
// but --hostname-override and the logging ones (and --master, --cleanup,
// --init-only, --write-config-to, which are no part of the config).
func TestProxyConfigFileWins(t *testing.T) {
	o, s, err := parseProxy(t, proxyConfigFile, "--proxy-mode=ipvs", "--cluster-cidr=10.0.0.0/8", "--iptables-min-sync-period=5s",
		"--sync-period=3s", "--masquerade-all=false", "--nodeport-addresses=primary", "--kubeconfig=/other", "--healthz-port=0",
		"--metrics-bind-address=0.0.0.0:1", "--profiling", "--feature-gates=LoggingAlphaOptions=true",
		"--hostname-override=Other", "-v=4", "--vmodule=tracker=6", "--master=https://10.0.0.1:6443")
	if err != nil {
		t.Fatal(err)
	}
	if s.Mode != "nftables" || s.ClusterCIDR != "10.244.0.0/16,fd00:10:244::/56" || s.MinSyncPeriod != 2*time.Second ||
		s.SyncPeriod != time.Minute || !s.MasqueradeAll || !slices.Equal(s.NodePortAddresses, []string{"192.168.0.0/16"}) ||
		s.ClientConnection.Kubeconfig != "/etc/kube/proxy.conf" || s.HealthzBindAddress != "0.0.0.0:20256" ||
		s.MetricsBindAddress != "127.0.0.1:10249" || s.EnableProfiling || len(s.FeatureGates) != 0 {
		t.Errorf("a flag won over the config file: %+v", s)
	}
	if s.HostnameOverride != "other" || s.Logging.Verbosity != 4 || o.master != "https://10.0.0.1:6443" {
		t.Errorf("--hostname-override, -v or --master lost: %q %v %q", s.HostnameOverride, s.Logging.Verbosity, o.master)
	}
	if vm := s.Logging.VModule; len(vm) != 2 || vm[0].FilePattern != "tracker" || vm[1].FilePattern != "proxier" {
		t.Errorf("vmodule %+v, want the flag's then the file's", vm)
	}
}

func TestProxyConfigFileModes(t *testing.T) {
	const head = "apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\n"
	for _, tc := range []struct {
		config        string
		mode          string
		sync, minSync time.Duration
		masqAll       bool
		nodePorts     []string
	}{
		{"", "iptables", 30 * time.Second, time.Second, false, nil},
		{"mode: \"\"\niptables: {syncPeriod: 5s, masqueradeAll: true}\nnftables: {syncPeriod: 6s}\n", "iptables", 5 * time.Second, time.Second, true, nil},
		{"mode: ipvs\nipvs: {syncPeriod: 7s}\niptables: {masqueradeAll: true, minSyncPeriod: 3s}\n", "ipvs", 7 * time.Second, 0, true, nil},
		{"mode: nftables\niptables: {masqueradeAll: true, syncPeriod: 5s}\n", "nftables", 30 * time.Second, time.Second, false, []string{"primary"}},
	} {
		s := mustParseProxy(t, head+tc.config)
		if string(s.Mode) != tc.mode || s.SyncPeriod != tc.sync || s.MinSyncPeriod != tc.minSync || s.MasqueradeAll != tc.masqAll ||
			!slices.Equal(s.NodePortAddresses, tc.nodePorts) {
			t.Errorf("%q: mode %q sync %v min %v masqAll %v nodePorts %v", tc.config, s.Mode, s.SyncPeriod, s.MinSyncPeriod, s.MasqueradeAll, s.NodePortAddresses)
		}
	}
}

func TestProxyWriteConfigTo(t *testing.T) {
	_, s, err := parseProxy(t, "", "--proxy-mode=ipvs", "--ipvs-sync-period=7s", "--masquerade-all", "--write-config-to=x")
	if err != nil {
		t.Fatal(err)
	}
	path := t.TempDir() + "/written.yaml"
	if err := writeKubeProxyConfiguration(path, s); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	var m map[string]any
	if err := yaml.Unmarshal(data, &m); err != nil || m["kind"] != "KubeProxyConfiguration" {
		t.Fatalf("%v: %s", err, data)
	}
	// What --write-config-to writes reads back as the same configuration.
	back := mustParseProxy(t, string(data))
	if back.Mode != "ipvs" || back.SyncPeriod != 7*time.Second || !back.MasqueradeAll || back.MinSyncPeriod != time.Second {
		t.Errorf("read back %+v from\n%s", back, data)
	}
}
