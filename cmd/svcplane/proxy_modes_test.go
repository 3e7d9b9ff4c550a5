package main

import (
	"strings"
	"testing"
	"time"

	"github.com/svcplane/svcplane/internal/proxy"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubeproxyconfig "k8s.io/kube-proxy/config/v1alpha1"
)

func TestModeSettingsFromKubeProxyConfiguration(t *testing.T) {
	o := &proxyOptions{mode: "ipvs", minSync: time.Second, sync: 30 * time.Second, clusterCIDR: "10.244.0.0/16",
		nodePortAddresses: []string{"primary", "192.168.0.0/24"}}
	o.modes.ipvsScheduler = "rr"
	c := kubeproxyconfig.KubeProxyConfiguration{IPVS: kubeproxyconfig.KubeProxyIPVSConfiguration{
		Scheduler: "wlc", MinSyncPeriod: metav1.Duration{Duration: 2 * time.Second}, SyncPeriod: metav1.Duration{Duration: 45 * time.Second}}}
	// --min-sync-period was given on the command line: it wins.
	set := func(flag string, apply func()) {
		if flag != "min-sync-period" {
			apply()
		}
	}
	o.modes.fromConfig(o, &c, set)
	if o.modes.ipvsScheduler != "wlc" || o.sync != 45*time.Second || o.minSync != time.Second {
		t.Errorf("got scheduler %q sync %v minSync %v", o.modes.ipvsScheduler, o.sync, o.minSync)
	}
	mc, err := o.modeConfig(proxy.IPv4)
	if err != nil || len(mc.ClusterCIDRs) != 1 || !mc.NodePortPrimary || len(mc.NodePortAddresses) != 1 {
		t.Errorf("mode config: %+v %v", mc, err)
	}
	o.clusterCIDR = "bogus"
	if _, err := o.modeConfig(proxy.IPv4); err == nil {
		t.Error("a bad --cluster-cidr should fail")
	}
}

func TestUnknownModeIsRefused(t *testing.T) {
	err := runProxyWithClient(t.Context(), &proxyOptions{mode: "bpf"}, nil)
	if err == nil || !strings.Contains(err.Error(), `proxy mode "bpf"`) {
		t.Errorf("got %v", err)
	}
}
