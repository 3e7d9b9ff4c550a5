package main

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/pflag"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	logsapi "k8s.io/component-base/logs/api/v1"
	"k8s.io/klog/v2"
	kubeproxyconfig "k8s.io/kube-proxy/config/v1alpha1"
	netutils "k8s.io/utils/net"
	"k8s.io/utils/ptr"
)

// defaultKubeProxyConfiguration fills in what c leaves unset with
// kube-proxy v1.36's defaults (SetDefaults_KubeProxyConfiguration of
// k8s.io/kubernetes/pkg/proxy/apis/config/v1alpha1).
func defaultKubeProxyConfiguration(c *kubeproxyconfig.KubeProxyConfiguration) {
	if c.BindAddress == "" {
		c.BindAddress = "0.0.0.0"
	}
	healthzHost, metricsHost := "0.0.0.0", "127.0.0.1"
	if netutils.ParseIPSloppy(c.BindAddress).To4() == nil {
		healthzHost, metricsHost = "[::]", "[::1]"
	}
	if c.HealthzBindAddress == "" {
		c.HealthzBindAddress = healthzHost + ":10256"
	} else {
		c.HealthzBindAddress = appendPortIfNeeded(c.HealthzBindAddress, 10256)
	}
	if c.MetricsBindAddress == "" {
		c.MetricsBindAddress = metricsHost + ":10249"
	} else {
		c.MetricsBindAddress = appendPortIfNeeded(c.MetricsBindAddress, 10249)
	}
	if c.OOMScoreAdj == nil {
		c.OOMScoreAdj = ptr.To[int32](-999)
	}
	defaultDuration(&c.IPTables.SyncPeriod, 30*time.Second)
	defaultDuration(&c.IPTables.MinSyncPeriod, time.Second)
	if c.IPTables.LocalhostNodePorts == nil {
		c.IPTables.LocalhostNodePorts = ptr.To(true)
	}
	defaultDuration(&c.IPVS.SyncPeriod, 30*time.Second)
	defaultDuration(&c.NFTables.SyncPeriod, 30*time.Second)
	defaultDuration(&c.NFTables.MinSyncPeriod, time.Second)
	ct := &c.Conntrack
	if ct.MaxPerCore == nil {
		ct.MaxPerCore = ptr.To[int32](32 * 1024)
	}
	if ct.Min == nil {
		ct.Min = ptr.To[int32](128 * 1024)
	}
	if c.IPTables.MasqueradeBit == nil {
		c.IPTables.MasqueradeBit = ptr.To[int32](14)
	}
	if c.NFTables.MasqueradeBit == nil {
		c.NFTables.MasqueradeBit = ptr.To[int32](14)
	}
	if ct.TCPEstablishedTimeout == nil {
		ct.TCPEstablishedTimeout = &metav1.Duration{Duration: 24 * time.Hour}
	}
	if ct.TCPCloseWaitTimeout == nil {
		ct.TCPCloseWaitTimeout = &metav1.Duration{Duration: time.Hour}
	}
	defaultDuration(&c.ConfigSyncPeriod, 15*time.Minute)
	if c.ClientConnection.ContentType == "" {
		c.ClientConnection.ContentType = "application/vnd.kubernetes.protobuf"
	}
	if c.ClientConnection.QPS == 0 {
		c.ClientConnection.QPS = 5
	}
	if c.ClientConnection.Burst == 0 {
		c.ClientConnection.Burst = 10
	}
	if c.FeatureGates == nil {
		c.FeatureGates = map[string]bool{}
	}
	logsapi.SetRecommendedLoggingConfiguration(&c.Logging)
}

func defaultDuration(d *metav1.Duration, def time.Duration) {
	if d.Duration == 0 {
		d.Duration = def
	}
}

// loadKubeProxyConfiguration decodes a KubeProxyConfiguration file as
// kube-proxy does: strictly (unknown and duplicate fields are errors)
// and, when only strictness failed, leniently with a warning; then it
// applies the defaults.
func loadKubeProxyConfiguration(path string) (*kubeproxyconfig.KubeProxyConfiguration, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	scheme := runtime.NewScheme()
	if err := kubeproxyconfig.AddToScheme(scheme); err != nil {
		return nil, err
	}
	obj, gvk, err := serializer.NewCodecFactory(scheme, serializer.EnableStrict).UniversalDeserializer().Decode(data, nil, nil)
	if err != nil {
		if !runtime.IsStrictDecodingError(err) {
			return nil, fmt.Errorf("failed to decode: %w", err)
		}
		var lenientErr error
		obj, gvk, lenientErr = serializer.NewCodecFactory(scheme, serializer.DisableStrict).UniversalDeserializer().Decode(data, nil, nil)
		if lenientErr != nil {
			return nil, fmt.Errorf("failed lenient decoding: %w", err)
		}
		klog.InfoS("Using lenient decoding as strict decoding failed", "err", err)
	}
	c, ok := obj.(*kubeproxyconfig.KubeProxyConfiguration)
	if !ok {
		return nil, fmt.Errorf("got unexpected config type: %v", gvk)
	}
	defaultKubeProxyConfiguration(c)
	return c, nil
}

// proxySettings is the configuration that runs, in the shape of
// kube-proxy's internal one: the mode's sync periods and masqueradeAll
// taken out of their mode's section.
type proxySettings struct {
	kubeproxyconfig.KubeProxyConfiguration
	SyncPeriod, MinSyncPeriod time.Duration
	MasqueradeAll             bool
}

// complete resolves the command line as kube-proxy's Options.Complete:
// with --config the file is the configuration, and of the flags only the
// logging ones and --hostname-override (besides --master, --cleanup,
// --init-only and --write-config-to, which are no part of it) still
// apply; without, the flags are.
func (o *proxyOptions) complete(fs *pflag.FlagSet) (*proxySettings, error) {
	var s *proxySettings
	if o.configFile != "" {
		c, err := loadKubeProxyConfiguration(o.configFile)
		if err != nil {
			return nil, err
		}
		if err := copyLogsFromFlags(fs, &c.Logging); err != nil {
			return nil, err
		}
		s = settingsFromFile(c)
	} else {
		if o.writeConfigTo == "" {
			o.config.HealthzBindAddress = addressFromDeprecatedFlags(o.config.HealthzBindAddress, o.healthzPort)
			o.config.MetricsBindAddress = addressFromDeprecatedFlags(o.config.MetricsBindAddress, o.metricsPort)
		}
		s = o.settingsFromFlags(fs)
	}
	platformApplyDefaults(s)
	if o.hostnameOverride != "" {
		name := strings.TrimSpace(o.hostnameOverride)
		if name == "" {
			return nil, fmt.Errorf("empty hostname-override is invalid")
		}
		s.HostnameOverride = strings.ToLower(name)
	}
	return s, nil
}

// settingsFromFile takes the mode's section's periods and masqueradeAll
// (mode "": iptables'), as kube-proxy's v1alpha1 conversion.
func settingsFromFile(c *kubeproxyconfig.KubeProxyConfiguration) *proxySettings {
	s := &proxySettings{KubeProxyConfiguration: *c}
	switch c.Mode {
	case "ipvs":
		s.SyncPeriod, s.MinSyncPeriod = c.IPVS.SyncPeriod.Duration, c.IPVS.MinSyncPeriod.Duration
	case "nftables":
		s.SyncPeriod, s.MinSyncPeriod = c.NFTables.SyncPeriod.Duration, c.NFTables.MinSyncPeriod.Duration
	default:
		s.SyncPeriod, s.MinSyncPeriod = c.IPTables.SyncPeriod.Duration, c.IPTables.MinSyncPeriod.Duration
	}
	if c.Mode == "nftables" {
		s.MasqueradeAll = c.NFTables.MasqueradeAll
	} else {
		s.MasqueradeAll = c.IPTables.MasqueradeAll
	}
	return s
}

// settingsFromFlags applies the flags kube-proxy keeps out of its config
// (processV1Alpha1Flags): --iptables-* periods for every mode but ipvs,
// --ipvs-* ones for ipvs. svcplane's deprecated --sync-period and
// --min-sync-period are the mode's period unless its own flag is given.
func (o *proxyOptions) settingsFromFlags(fs *pflag.FlagSet) *proxySettings {
	s := &proxySettings{KubeProxyConfiguration: o.config, MasqueradeAll: o.masqueradeAll,
		SyncPeriod: o.config.IPTables.SyncPeriod.Duration, MinSyncPeriod: o.config.IPTables.MinSyncPeriod.Duration}
	if fs.Changed("sync-period") {
		s.SyncPeriod = o.syncPeriod
	}
	if fs.Changed("min-sync-period") {
		s.MinSyncPeriod = o.minSyncPeriod
	}
	ipvs := o.config.Mode == "ipvs"
	if fs.Changed("iptables-sync-period") && !ipvs {
		s.SyncPeriod = o.iptablesSyncPeriod
	}
	if fs.Changed("iptables-min-sync-period") && !ipvs {
		s.MinSyncPeriod = o.iptablesMinSyncPeriod
	}
	if fs.Changed("ipvs-sync-period") && ipvs {
		s.SyncPeriod = o.ipvsSyncPeriod
	}
	if fs.Changed("ipvs-min-sync-period") && ipvs {
		s.MinSyncPeriod = o.ipvsMinSyncPeriod
	}
	return s
}

// platformApplyDefaults is kube-proxy's on Linux: mode "" is iptables,
// nftables without nodePortAddresses accepts NodePorts on the primary
// IPs only, and detectLocalMode "" is ClusterCIDR.
func platformApplyDefaults(s *proxySettings) {
	if s.Mode == "" {
		klog.InfoS("Using iptables proxy")
		s.Mode = "iptables"
	}
	if s.Mode == "nftables" && len(s.NodePortAddresses) == 0 {
		s.NodePortAddresses = []string{"primary"}
	}
	if s.DetectLocalMode == "" {
		s.DetectLocalMode = "ClusterCIDR"
	}
}

// addressFromDeprecatedFlags: port 0 turns the server off; otherwise a
// bare IP gets the port.
func addressFromDeprecatedFlags(addr string, port int32) string {
	if port == 0 {
		return ""
	}
	return appendPortIfNeeded(addr, port)
}

// copyLogsFromFlags copies the logging flags given on the command line
// into to (a config file's logging section): flags win; --vmodule's
// entries come before the file's.
func copyLogsFromFlags(from *pflag.FlagSet, to *logsapi.LoggingConfiguration) error {
	var clone pflag.FlagSet
	logsapi.AddFlags(to, &clone)
	vmodule := to.VModule
	to.VModule = nil
	var err error
	clone.VisitAll(func(f *pflag.Flag) {
		given := from.Lookup(f.Name)
		if err != nil || given == nil || !given.Changed {
			return
		}
		if setErr := f.Value.Set(given.Value.String()); setErr != nil {
			err = fmt.Errorf("copying flag %s value: %w", f.Name, setErr)
		}
	})
	to.VModule = append(to.VModule, vmodule...)
	return err
}
