package main

import (
	"reflect"
	"sort"
	"sync"

	"k8s.io/component-base/featuregate"
	logsapi "k8s.io/component-base/logs/api/v1"
	logsjson "k8s.io/component-base/logs/json"
	"k8s.io/klog/v2"
	"k8s.io/kube-proxy/config/v1alpha1"

	"github.com/svcplane/svcplane/internal/proxy/kubeproxyconfig"
)

var registerJSONLogFormat sync.Once

// addLogFormats registers the json log format, as kube-proxy's main
// does, before the logging flags are declared (their list depends on it).
func addLogFormats() {
	registerJSONLogFormat.Do(func() {
		if err := logsapi.RegisterLogFormat(logsapi.JSONLogFormat, logsjson.Factory{}, logsapi.LoggingBetaOptions); err != nil {
			klog.ErrorS(err, "Registering the json log format")
		}
	})
}

// applyLogging applies the logging configuration (flags, or the config
// file's logging section with the logging flags over it) with the
// logging feature gates of featureGates; the other gates are logged as
// unused.
func applyLogging(s *kubeproxyconfig.Settings) error {
	fg := featuregate.NewFeatureGate()
	if err := logsapi.AddFeatureGates(fg); err != nil {
		return err
	}
	known := fg.GetAll()
	logging := map[string]bool{}
	var unused []string
	for name, on := range s.FeatureGates {
		if _, ok := known[featuregate.Feature(name)]; ok {
			logging[name] = on
		} else {
			unused = append(unused, name)
		}
	}
	if err := fg.SetFromMap(logging); err != nil {
		return err
	}
	if err := logsapi.ValidateAndApply(&s.Logging, fg); err != nil {
		return err
	}
	sort.Strings(unused)
	for _, name := range unused {
		klog.V(1).InfoS("Feature gate accepted but unused by svcplane", "featureGate", name, "enabled", s.FeatureGates[name])
	}
	return nil
}

// unusedSetting is a KubeProxyConfiguration field svcplane has no
// behaviour for, with its value and kube-proxy's default.
type unusedSetting struct {
	field      string
	value, def any
}

// unusedSettings are the settings of s that would change what kube-proxy
// does but not what svcplane does: every one that differs from kube-proxy's
// default.
func unusedSettings(s *kubeproxyconfig.Settings) []unusedSetting {
	var d v1alpha1.KubeProxyConfiguration
	kubeproxyconfig.SetDefaults(&d)
	c := &s.KubeProxyConfiguration
	all := []unusedSetting{
		{"bindAddressHardFail", c.BindAddressHardFail, d.BindAddressHardFail},
		{"showHiddenMetricsForVersion", c.ShowHiddenMetricsForVersion, d.ShowHiddenMetricsForVersion},
		{"iptables.masqueradeBit", *c.IPTables.MasqueradeBit, *d.IPTables.MasqueradeBit},
		{"nftables.masqueradeBit", *c.NFTables.MasqueradeBit, *d.NFTables.MasqueradeBit},
		{"ipvs.excludeCIDRs", c.IPVS.ExcludeCIDRs, d.IPVS.ExcludeCIDRs},
		{"ipvs.strictARP", c.IPVS.StrictARP, d.IPVS.StrictARP},
		{"ipvs.tcpTimeout", c.IPVS.TCPTimeout, d.IPVS.TCPTimeout},
		{"ipvs.tcpFinTimeout", c.IPVS.TCPFinTimeout, d.IPVS.TCPFinTimeout},
		{"ipvs.udpTimeout", c.IPVS.UDPTimeout, d.IPVS.UDPTimeout},
		{"detectLocalMode", c.DetectLocalMode, v1alpha1.LocalMode("ClusterCIDR")},
		{"detectLocal", c.DetectLocal, d.DetectLocal},
		{"portRange", c.PortRange, d.PortRange},
		{"winkernel", c.Winkernel, d.Winkernel},
		{"windowsRunAsService", c.WindowsRunAsService, d.WindowsRunAsService},
	}
	// kube-proxy's iptables mode accepts IPv4 NodePorts on localhost by
	// default (route_localnet); svcplane's never does.
	if c.Mode == "iptables" && *c.IPTables.LocalhostNodePorts {
		all = append(all, unusedSetting{"iptables.localhostNodePorts", true, false})
	}
	if ip := c.BindAddress; ip != "0.0.0.0" && ip != "::" {
		all = append(all, unusedSetting{"bindAddress", ip, "0.0.0.0"})
	}
	var out []unusedSetting
	for _, u := range all {
		if !reflect.DeepEqual(u.value, u.def) {
			out = append(out, u)
		}
	}
	return out
}

// logUnused logs, at V(1), each setting svcplane accepts but does not use.
func logUnused(s *kubeproxyconfig.Settings) {
	for _, u := range unusedSettings(s) {
		klog.V(1).InfoS("Setting accepted but unused by svcplane", "setting", u.field, "value", u.value)
	}
}
