package main

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubeproxyconfig "k8s.io/kube-proxy/config/v1alpha1"
)

func TestModeSettingsFromKubeProxyConfiguration(t *testing.T) {
	o := newProxyOptions()
	o.Mode = "ipvs"
	c := kubeproxyconfig.KubeProxyConfiguration{IPVS: kubeproxyconfig.KubeProxyIPVSConfiguration{
		Scheduler: "wlc", MinSyncPeriod: metav1.Duration{Duration: 2 * time.Second}, SyncPeriod: metav1.Duration{Duration: 45 * time.Second}}}
	// --min-sync-period was given on the command line: it wins.
	set := func(flag string, apply func()) {
		if flag != "min-sync-period" {
			apply()
		}
	}
	o.modeConfig(&c, set)
	if o.IPVSScheduler != "wlc" || o.SyncPeriod != 45*time.Second || o.MinSyncPeriod != time.Second {
		t.Errorf("got scheduler %q sync %v minSync %v", o.IPVSScheduler, o.SyncPeriod, o.MinSyncPeriod)
	}
}
