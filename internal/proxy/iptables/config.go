package iptables

import (
	"fmt"
	"net/netip"

	"github.com/svcplane/svcplane/internal/proxy"
)

// Config is the backend's static configuration.
type Config struct {
	Family proxy.IPFamily
	// ClusterCIDRs: traffic to a ClusterIP from outside them is
	// masqueraded. Empty: only hairpin traffic (or all, MasqueradeAll).
	ClusterCIDRs []netip.Prefix
	// MasqueradeAll masquerades all Service traffic.
	MasqueradeAll bool
	// MasqueradeBit is the packet-mark bit for masquerading (default 14).
	MasqueradeBit int
	// NodePortAddresses limits NodePorts to addresses in these prefixes;
	// empty means every local address but loopback.
	NodePortAddresses []netip.Prefix
	// NodePortPrimary limits NodePorts to the node's own IPs.
	NodePortPrimary bool
}

// markMasq is the mark value ("0x4000") and the value/mask form.
func (c *Config) markMasq() (string, string) {
	bit := c.MasqueradeBit
	if bit <= 0 || bit > 31 {
		bit = 14
	}
	v := fmt.Sprintf("%#x", uint32(1)<<bit)
	return v, v + "/" + v
}

func (c *Config) loopback() string {
	if c.Family == proxy.IPv6 {
		return "::1/128"
	}
	return "127.0.0.0/8"
}

// hostPrefix renders an address as a host prefix ("10.0.0.1/32"), the
// form iptables-save prints.
func hostPrefix(a netip.Addr) string {
	return netip.PrefixFrom(a, a.BitLen()).String()
}
