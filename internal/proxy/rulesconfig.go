package proxy

import "net/netip"

// RulesConfig is what the kernel rule backends (nftables, iptables) read of
// kube-proxy's settings, for one IP family.
type RulesConfig struct {
	Family IPFamily
	// ClusterCIDRs: traffic to a ClusterIP from outside them is masqueraded.
	// Empty means ClusterIP traffic is masqueraded only when hairpinning
	// (or with MasqueradeAll).
	ClusterCIDRs []netip.Prefix
	// MasqueradeAll masquerades all Service traffic.
	MasqueradeAll bool
	// MasqueradeBit is the packet-mark bit for masquerading (kube-proxy's
	// default 14 when 0 or out of range).
	MasqueradeBit int
	// NodePortAddresses limits NodePorts to addresses in these prefixes;
	// empty means every local address but loopback.
	NodePortAddresses []netip.Prefix
	// NodePortPrimary limits NodePorts to the node's own IPs from its Node
	// object (nodePortAddresses: ["primary"]).
	NodePortPrimary bool
}

// MasqueradeMark is the packet mark that asks for masquerading: bit
// MasqueradeBit (14 by default).
func (c *RulesConfig) MasqueradeMark() uint32 {
	bit := c.MasqueradeBit
	if bit <= 0 || bit > 31 {
		bit = 14
	}
	return uint32(1) << bit
}

// Loopback is the family's loopback prefix, where NodePorts are not
// accepted.
func (c *RulesConfig) Loopback() netip.Prefix {
	if c.Family == IPv6 {
		return netip.MustParsePrefix("::1/128")
	}
	return netip.MustParsePrefix("127.0.0.0/8")
}
