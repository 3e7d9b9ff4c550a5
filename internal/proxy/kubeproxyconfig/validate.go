package kubeproxyconfig

import (
	"net"
	"strconv"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/component-base/metrics"
	netutils "k8s.io/utils/net"
)

// Validate is kube-proxy's validation of its resolved configuration
// (pkg/proxy/apis/config/validation), with svcplane's userspace mode
// besides iptables, ipvs and nftables. Feature gates are not checked:
// svcplane does not know kube-proxy's. As upstream, an empty metrics
// address is invalid (so --metrics-port=0 fails).
func (s *Settings) Validate() field.ErrorList {
	p := field.NewPath("KubeProxyConfiguration")
	var errs field.ErrorList
	bit := func(path *field.Path, b *int32) {
		if b != nil && (*b < 0 || *b > 31) {
			errs = append(errs, field.Invalid(path.Child("MasqueradeBit"), *b, "must be within the range [0, 31]"))
		}
	}
	nonNegative := func(path *field.Path, d time.Duration) {
		if d < 0 {
			errs = append(errs, field.Invalid(path, d.String(), "must be greater than or equal to 0"))
		}
	}
	bit(p.Child("KubeProxyIPTablesConfiguration"), s.IPTables.MasqueradeBit)
	switch s.Mode {
	case "ipvs":
		ipvs := p.Child("KubeProxyIPVSConfiguration")
		nonNegative(ipvs.Child("TCPTimeout"), s.IPVS.TCPTimeout.Duration)
		nonNegative(ipvs.Child("TCPFinTimeout"), s.IPVS.TCPFinTimeout.Duration)
		nonNegative(ipvs.Child("UDPTimeout"), s.IPVS.UDPTimeout.Duration)
		errs = append(errs, validateCIDRs(s.IPVS.ExcludeCIDRs, ipvs.Child("ExcludeCidrs"))...)
	case "nftables":
		bit(p.Child("KubeProxyNFTablesConfiguration"), s.NFTables.MasqueradeBit)
	}
	errs = append(errs, s.validateLinux(p.Child("KubeProxyLinuxConfiguration"))...)
	switch s.Mode {
	case "iptables", "ipvs", "nftables", "userspace", "":
	default:
		errs = append(errs, field.Invalid(p.Child("Mode").Child("ProxyMode"), string(s.Mode),
			"must be iptables, ipvs, nftables, userspace or blank (blank means the best-available proxy [currently iptables])"))
	}
	if s.ClientConnection.Burst < 0 {
		errs = append(errs, field.Invalid(p.Child("ClientConnection").Child("Burst"), s.ClientConnection.Burst, "must be greater than or equal to 0"))
	}
	if s.ConfigSyncPeriod.Duration <= 0 {
		errs = append(errs, field.Invalid(p.Child("ConfigSyncPeriod"), s.ConfigSyncPeriod.Duration.String(), "must be greater than 0"))
	}
	if s.SyncPeriod <= 0 {
		errs = append(errs, field.Invalid(p.Child("SyncPeriod"), s.SyncPeriod.String(), "must be greater than 0"))
	}
	nonNegative(p.Child("MinSyncPeriod"), s.MinSyncPeriod)
	if s.MinSyncPeriod > s.SyncPeriod {
		errs = append(errs, field.Invalid(p.Child("SyncPeriod"), s.MinSyncPeriod.String(), "must be greater than or equal to "+p.Child("MinSyncPeriod").String()))
	}
	if netutils.ParseIPSloppy(s.BindAddress) == nil {
		errs = append(errs, field.Invalid(p.Child("BindAddress"), s.BindAddress, "not a valid textual representation of an IP address"))
	}
	if s.HealthzBindAddress != "" {
		errs = append(errs, validateHostPort(s.HealthzBindAddress, p.Child("HealthzBindAddress"))...)
	}
	errs = append(errs, validateHostPort(s.MetricsBindAddress, p.Child("MetricsBindAddress"))...)
	errs = append(errs, validateNodePortAddresses(s.NodePortAddresses, p.Child("NodePortAddresses"))...)
	for _, e := range metrics.ValidateShowHiddenMetricsVersion(s.ShowHiddenMetricsForVersion) {
		errs = append(errs, field.Invalid(p.Child("ShowHiddenMetricsForVersion"), s.ShowHiddenMetricsForVersion, e.Error()))
	}
	return append(errs, s.validateDetectLocal(p)...)
}

func (s *Settings) validateLinux(p *field.Path) field.ErrorList {
	var errs field.ErrorList
	ct, ctp := &s.Conntrack, p.Child("KubeProxyConntrackConfiguration")
	for name, v := range map[string]*int32{"MaxPerCore": ct.MaxPerCore, "Min": ct.Min} {
		if v != nil && *v < 0 {
			errs = append(errs, field.Invalid(ctp.Child(name), *v, "must be greater than or equal to 0"))
		}
	}
	for name, d := range map[string]time.Duration{"TCPEstablishedTimeout": ct.TCPEstablishedTimeout.Duration,
		"TCPCloseWaitTimeout": ct.TCPCloseWaitTimeout.Duration, "UDPTimeout": ct.UDPTimeout.Duration, "UDPStreamTimeout": ct.UDPStreamTimeout.Duration} {
		if d < 0 {
			errs = append(errs, field.Invalid(ctp.Child(name), d.String(), "must be greater than or equal to 0"))
		}
	}
	if v := s.OOMScoreAdj; v != nil && (*v < -1000 || *v > 1000) {
		errs = append(errs, field.Invalid(p.Child("OOMScoreAdj"), *v, "must be within the range [-1000, 1000]"))
	}
	return errs
}

func (s *Settings) validateDetectLocal(p *field.Path) field.ErrorList {
	var errs field.ErrorList
	dl := p.Child("DetectLocalConfiguration")
	switch s.DetectLocalMode {
	case "ClusterCIDR":
		if s.ClusterCIDR != "" {
			errs = append(errs, validateDualStackCIDRs(strings.Split(s.ClusterCIDR, ","), dl.Child("ClusterCIDRs"))...)
		}
	case "NodeCIDR", "":
	case "BridgeInterface":
		if s.DetectLocal.BridgeInterface == "" {
			errs = append(errs, field.Invalid(dl.Child("InterfaceName"), "", "must not be empty"))
		}
	case "InterfaceNamePrefix":
		if s.DetectLocal.InterfaceNamePrefix == "" {
			errs = append(errs, field.Invalid(dl.Child("InterfacePrefix"), "", "must not be empty"))
		}
	default:
		errs = append(errs, field.NotSupported(p.Child("DetectLocalMode"), string(s.DetectLocalMode),
			[]string{"ClusterCIDR", "NodeCIDR", "BridgeInterface", "InterfaceNamePrefix", ""}))
	}
	return errs
}

func validateHostPort(input string, p *field.Path) field.ErrorList {
	host, port, err := net.SplitHostPort(input)
	if err != nil {
		return field.ErrorList{field.Invalid(p, input, "must be IP:port")}
	}
	var errs field.ErrorList
	if netutils.ParseIPSloppy(host) == nil {
		errs = append(errs, field.Invalid(p, host, "must be a valid IP"))
	}
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
		errs = append(errs, field.Invalid(p, port, "must be a valid port"))
	}
	return errs
}

func validateNodePortAddresses(addrs []string, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, a := range addrs {
		if a == "primary" {
			if i != 0 || len(addrs) != 1 {
				errs = append(errs, field.Invalid(p.Index(i), a, "can't use both 'primary' and CIDRs"))
			}
			break
		}
		if _, _, err := netutils.ParseCIDRSloppy(a); err != nil {
			errs = append(errs, field.Invalid(p.Index(i), a, "must be a valid CIDR"))
		}
	}
	return errs
}

func validateCIDRs(cidrs []string, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, c := range cidrs {
		if _, _, err := netutils.ParseCIDRSloppy(c); err != nil {
			errs = append(errs, field.Invalid(p.Index(i), c, "must be a valid CIDR"))
		}
	}
	return errs
}

func validateDualStackCIDRs(cidrs []string, p *field.Path) field.ErrorList {
	const pair = "must be a either a single CIDR or dual-stack pair of CIDRs (e.g. [10.100.0.0/16, fde4:8dba:82e1::/48]"
	if len(cidrs) > 2 {
		return field.ErrorList{field.Invalid(p, cidrs, pair)}
	}
	var errs field.ErrorList
	for i, c := range cidrs {
		if _, _, err := netutils.ParseCIDRSloppy(c); err != nil {
			errs = append(errs, field.Invalid(p.Index(i), c, "must be a valid CIDR block (e.g. 10.100.0.0/16 or fde4:8dba:82e1::/48)"))
		}
	}
	if len(cidrs) == 2 {
		if dual, err := netutils.IsDualStackCIDRStrings(cidrs); err == nil && !dual {
			errs = append(errs, field.Invalid(p, cidrs, pair))
		}
	}
	return errs
}
