package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"
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
	if o.ClusterCIDR != "10.244.0.0/16,fd00:10:244::/56" || o.HostnameOverride != "Node-A" || !o.MasqueradeAll ||
		o.MinSyncPeriod != 2*time.Second || o.SyncPeriod != time.Minute || o.HealthzBindAddress != "0.0.0.0:20256" ||
		o.MetricsBindAddress != "127.0.0.1:20249" || o.kubeconfig != "/etc/kube/proxy.conf" ||
		!slices.Equal(o.NodePortAddresses, []string{"192.168.0.0/16"}) {
		t.Errorf("config not applied: %+v", o)
	}
}

func TestConfigFileExplicitFlagsWin(t *testing.T) {
	o, err := parseProxyFlags(t, sampleConfig, "--min-sync-period=5s", "--cluster-cidr=10.0.0.0/8",
		"--hostname-override=other", "--masquerade-all=false", "--nodeport-addresses=primary")
	if err != nil {
		t.Fatal(err)
	}
	if o.MinSyncPeriod != 5*time.Second || o.ClusterCIDR != "10.0.0.0/8" || o.HostnameOverride != "other" || o.MasqueradeAll ||
		!slices.Equal(o.NodePortAddresses, []string{"primary"}) {
		t.Errorf("explicit flags lost: %+v", o)
	}
	if o.SyncPeriod != time.Minute {
		t.Errorf("flags not given should come from the file: sync=%v", o.SyncPeriod)
	}
}

func TestConfigFileDefaults(t *testing.T) {
	o, err := parseProxyFlags(t, "apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\n")
	if err != nil {
		t.Fatal(err)
	}
	def := newProxyOptions()
	if o.MinSyncPeriod != def.MinSyncPeriod || o.SyncPeriod != def.SyncPeriod || o.HealthzBindAddress != def.HealthzBindAddress || o.Mode != "nftables" {
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
