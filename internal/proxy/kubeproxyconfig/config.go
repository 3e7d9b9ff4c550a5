package kubeproxyconfig

import (
	"net"
	"strconv"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	logsapi "k8s.io/component-base/logs/api/v1"
	"k8s.io/klog/v2"
	v1alpha1 "k8s.io/kube-proxy/config/v1alpha1"
	netutils "k8s.io/utils/net"
	"k8s.io/utils/ptr"
)

// SetDefaults fills in what c leaves unset with
// kube-proxy v1.36's defaults (SetDefaults_KubeProxyConfiguration of
// k8s.io/kubernetes/pkg/proxy/apis/config/v1alpha1).
func SetDefaults(c *v1alpha1.KubeProxyConfiguration) {
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
		c.HealthzBindAddress = AppendPortIfNeeded(c.HealthzBindAddress, 10256)
	}
	if c.MetricsBindAddress == "" {
		c.MetricsBindAddress = metricsHost + ":10249"
	} else {
		c.MetricsBindAddress = AppendPortIfNeeded(c.MetricsBindAddress, 10249)
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

// Settings is the configuration that runs, in the shape of
// kube-proxy's internal one: the mode's sync periods and masqueradeAll
// taken out of their mode's section.
type Settings struct {
	v1alpha1.KubeProxyConfiguration
	SyncPeriod, MinSyncPeriod time.Duration
	MasqueradeAll             bool
}

// FromFile takes the mode's section's periods and masqueradeAll
// (mode "": iptables'), as kube-proxy's v1alpha1 conversion.
func FromFile(c *v1alpha1.KubeProxyConfiguration) *Settings {
	s := &Settings{KubeProxyConfiguration: *c}
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

// ApplyPlatformDefaults is kube-proxy's platformApplyDefaults on Linux:
// mode "" is iptables, nftables without nodePortAddresses accepts
// NodePorts on the primary IPs only, and detectLocalMode "" is
// ClusterCIDR.
func (s *Settings) ApplyPlatformDefaults() {
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

// Versioned is s as a v1alpha1 KubeProxyConfiguration (what
// --write-config-to writes): the periods and masqueradeAll go back into
// the mode's section.
func (s *Settings) Versioned() v1alpha1.KubeProxyConfiguration {
	c := s.KubeProxyConfiguration
	c.APIVersion, c.Kind = v1alpha1.SchemeGroupVersion.String(), "KubeProxyConfiguration"
	switch c.Mode {
	case "ipvs":
		c.IPVS.SyncPeriod.Duration, c.IPVS.MinSyncPeriod.Duration = s.SyncPeriod, s.MinSyncPeriod
	case "nftables":
		c.NFTables.SyncPeriod.Duration, c.NFTables.MinSyncPeriod.Duration = s.SyncPeriod, s.MinSyncPeriod
	default:
		c.IPTables.SyncPeriod.Duration, c.IPTables.MinSyncPeriod.Duration = s.SyncPeriod, s.MinSyncPeriod
	}
	if c.Mode == "nftables" {
		c.NFTables.MasqueradeAll = s.MasqueradeAll
	} else {
		c.IPTables.MasqueradeAll = s.MasqueradeAll
	}
	return c
}

// AppendPortIfNeeded is addr, with port appended when addr is a bare IP.
func AppendPortIfNeeded(addr string, port int32) string {
	if _, _, err := net.SplitHostPort(addr); err == nil {
		return addr
	}
	if netutils.ParseIPSloppy(addr) == nil {
		return addr
	}
	return net.JoinHostPort(addr, strconv.Itoa(int(port)))
}
