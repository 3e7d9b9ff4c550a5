package app

import (
	"fmt"
	"net/netip"
	"os"
	"strings"
	"time"

	"github.com/svcplane/svcplane/internal/proxy"
	"github.com/svcplane/svcplane/internal/proxy/conntrack"
)

// Config is kube-proxy's settings that svcplane honours.
type Config struct {
	// Mode is nftables (also ""), iptables, ipvs or userspace.
	Mode string
	// ClusterCIDR: pod CIDRs, comma-separated; traffic to a ClusterIP from
	// outside them is masqueraded.
	ClusterCIDR string
	// HostnameOverride is the node's name (empty: the host name).
	HostnameOverride string
	MinSyncPeriod    time.Duration
	SyncPeriod       time.Duration
	// NodePortAddresses are CIDRs or "primary"; empty: every local address.
	NodePortAddresses []string
	MasqueradeAll     bool
	// HealthzBindAddress and MetricsBindAddress: "" turns the server off.
	HealthzBindAddress string
	MetricsBindAddress string
	// IPTablesVariant (iptables and ipvs modes): legacy, nft, or "" for
	// whatever `iptables` is.
	IPTablesVariant string
	// IPVSScheduler (ipvs and userspace modes).
	IPVSScheduler string
	// CanaryInterval (iptables mode): how often the canary chains are
	// checked for a flush.
	CanaryInterval time.Duration
	// EnableProfiling serves /debug/pprof on the metrics address.
	EnableProfiling bool
	// ConfigSyncPeriod is the informers' resync period (0: none).
	ConfigSyncPeriod time.Duration
	// Conntrack, when set, is applied to the kernel's conntrack sysctls at
	// start, as kube-proxy does (nil leaves them: `svcplane up`).
	Conntrack *conntrack.Sysctls
}

// Defaults returns kube-proxy's defaults.
func Defaults() Config {
	return Config{Mode: "nftables", MinSyncPeriod: time.Second, SyncPeriod: 30 * time.Second,
		HealthzBindAddress: "0.0.0.0:10256", MetricsBindAddress: "127.0.0.1:10249",
		IPVSScheduler: "rr", CanaryInterval: time.Minute}
}

// NodeName is HostnameOverride or the host name, lower-cased.
func (c *Config) NodeName() (string, error) {
	name := c.HostnameOverride
	if name == "" {
		var err error
		if name, err = os.Hostname(); err != nil {
			return "", err
		}
	}
	return strings.ToLower(strings.TrimSpace(name)), nil
}

// ClusterCIDRs parses ClusterCIDR.
func (c *Config) ClusterCIDRs() ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, s := range strings.Split(c.ClusterCIDR, ",") {
		if s = strings.TrimSpace(s); s == "" {
			continue
		}
		p, err := netip.ParsePrefix(s)
		if err != nil {
			return nil, fmt.Errorf("--cluster-cidr: %w", err)
		}
		out = append(out, p.Masked())
	}
	return out, nil
}

// RulesConfig is one family's backend settings.
func (c *Config) RulesConfig(family proxy.IPFamily) (proxy.RulesConfig, error) {
	rc := proxy.RulesConfig{Family: family, MasqueradeAll: c.MasqueradeAll}
	cidrs, err := c.ClusterCIDRs()
	if err != nil {
		return rc, err
	}
	for _, p := range cidrs {
		if proxy.FamilyOf(p.Addr()) == family {
			rc.ClusterCIDRs = append(rc.ClusterCIDRs, p)
		}
	}
	for _, s := range c.NodePortAddresses {
		if s == "primary" {
			rc.NodePortPrimary = true
			continue
		}
		p, err := netip.ParsePrefix(s)
		if err != nil {
			return rc, fmt.Errorf("--nodeport-addresses: %w", err)
		}
		if proxy.FamilyOf(p.Addr()) == family {
			rc.NodePortAddresses = append(rc.NodePortAddresses, p.Masked())
		}
	}
	return rc, nil
}
