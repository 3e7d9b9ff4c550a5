package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/svcplane/svcplane/internal/proxy"
)

// parseProxyFlags parses args as `svcplane proxy` would, loading --config.
func parseProxyFlags(t *testing.T, config string, args ...string) (*proxyOptions, error) {
	t.Helper()
	o := newProxyOptions()
	cmd := &cobra.Command{Use: "proxy"}
	o.addFlags(cmd)
	if config != "" {
		path := filepath.Join(t.TempDir(), "config.yaml")
		if err := os.WriteFile(path, []byte(config), 0o600); err != nil {
			t.Fatal(err)
		}
		args = append(args, "--config", path)
	}
	if err := cmd.Flags().Parse(args); err != nil {
		t.Fatal(err)
	}
	if o.configFile == "" {
		return o, nil
	}
	return o, o.loadConfig(cmd)
}

const sampleConfig = `apiVersion: kubeproxy.config.k8s.io/v1alpha1
kind: KubeProxyConfiguration
mode: nftables
clusterCIDR: 10.244.0.0/16,fd00:10:244::/56
hostnameOverride: Node-A
healthzBindAddress: 0.0.0.0:20256
metricsBindAddress: 127.0.0.1:20249
nodePortAddresses: ["192.168.0.0/16"]
clientConnection:
  kubeconfig: /etc/kube/proxy.conf
nftables:
  masqueradeAll: true
  minSyncPeriod: 2s
  syncPeriod: 1m
`

func TestConfigFile(t *testing.T) {
	o, err := parseProxyFlags(t, sampleConfig)
	if err != nil {
		t.Fatal(err)
	}
	if o.clusterCIDR != "10.244.0.0/16,fd00:10:244::/56" || o.hostname != "Node-A" || !o.masqueradeAll ||
		o.minSync != 2*time.Second || o.sync != time.Minute || o.healthzAddr != "0.0.0.0:20256" ||
		o.metricsAddr != "127.0.0.1:20249" || o.kubeconfig != "/etc/kube/proxy.conf" ||
		!slices.Equal(o.nodePortAddresses, []string{"192.168.0.0/16"}) {
		t.Errorf("config not applied: %+v", o)
	}
	if name, _ := o.proxyNodeName(); name != "node-a" {
		t.Errorf("node name %q", name)
	}
	v4, err := o.modeConfig(proxy.IPv4)
	if err != nil || len(v4.ClusterCIDRs) != 1 || v4.ClusterCIDRs[0].String() != "10.244.0.0/16" || len(v4.NodePortAddresses) != 1 {
		t.Errorf("IPv4 backend config %+v %v", v4, err)
	}
	v6, err := o.modeConfig(proxy.IPv6)
	if err != nil || len(v6.ClusterCIDRs) != 1 || v6.Family != proxy.IPv6 || len(v6.NodePortAddresses) != 0 {
		t.Errorf("IPv6 backend config %+v %v", v6, err)
	}
}

func TestConfigFileExplicitFlagsWin(t *testing.T) {
	o, err := parseProxyFlags(t, sampleConfig, "--min-sync-period=5s", "--cluster-cidr=10.0.0.0/8",
		"--hostname-override=other", "--masquerade-all=false", "--nodeport-addresses=primary")
	if err != nil {
		t.Fatal(err)
	}
	if o.minSync != 5*time.Second || o.clusterCIDR != "10.0.0.0/8" || o.hostname != "other" || o.masqueradeAll ||
		!slices.Equal(o.nodePortAddresses, []string{"primary"}) {
		t.Errorf("explicit flags lost: %+v", o)
	}
	if o.sync != time.Minute {
		t.Errorf("flags not given should come from the file: sync=%v", o.sync)
	}
}

func TestConfigFileDefaults(t *testing.T) {
	o, err := parseProxyFlags(t, "apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\n")
	if err != nil {
		t.Fatal(err)
	}
	def := newProxyOptions()
	if o.minSync != def.minSync || o.sync != def.sync || o.healthzAddr != def.healthzAddr || o.mode != "nftables" {
		t.Errorf("an empty config should keep the defaults: %+v", o)
	}
}

func TestConfigFileRejected(t *testing.T) {
	for name, tc := range map[string]struct{ config, want string }{
		"unknown field": {"apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\nbogusField: 1\n",
			`unknown field "bogusField"`},
		"unknown nested field": {"apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\nnftables:\n  syncPeriodd: 1s\n",
			`unknown field "syncPeriodd"`},
		"wrong kind": {"apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeletConfiguration\n", "want kind KubeProxyConfiguration"},
		"not yaml":   {"mode: [", "config.yaml"},
	} {
		_, err := parseProxyFlags(t, tc.config)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want it to mention %q", name, err, tc.want)
		}
	}
}

func TestFamiliesOf(t *testing.T) {
	for _, tc := range []struct {
		addrs []string
		want  []proxy.IPFamily
	}{
		{nil, []proxy.IPFamily{proxy.IPv4}},
		{[]string{"10.244.0.0", "192.168.0.2"}, []proxy.IPFamily{proxy.IPv4}},
		{[]string{"fd00::1"}, []proxy.IPFamily{proxy.IPv6}},
		{[]string{"fd00::1", "192.168.0.2", "fd00::2"}, []proxy.IPFamily{proxy.IPv6, proxy.IPv4}},
		{[]string{"node-a.example", "192.168.0.2", "fd00::1"}, []proxy.IPFamily{proxy.IPv4, proxy.IPv6}},
	} {
		if got := familiesOf(tc.addrs); !slices.Equal(got, tc.want) {
			t.Errorf("familiesOf(%v) = %v, want %v", tc.addrs, got, tc.want)
		}
	}
}
