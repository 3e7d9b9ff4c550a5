package nftables

import (
	"net/netip"

	"github.com/svcplane/svcplane/internal/proxy"
)

// TableName is the nftables table the backend owns (one per family).
const TableName = "svcplane"

// Config is the backend's static configuration.
type Config struct {
	Family proxy.IPFamily
	// ClusterCIDRs: traffic to a ClusterIP from outside them is masqueraded.
	// Empty means ClusterIP traffic is masqueraded only when hairpinning
	// (or with MasqueradeAll).
	ClusterCIDRs []netip.Prefix
	// MasqueradeAll masquerades all Service traffic.
	MasqueradeAll bool
	// MasqueradeBit is the packet-mark bit for masquerading (kube-proxy: 14).
	MasqueradeBit int
	// NodePortAddresses limits NodePorts to addresses in these prefixes;
	// empty means every local address but loopback.
	NodePortAddresses []netip.Prefix
	// NodePortPrimary limits NodePorts to the node's own IPs from its Node
	// object (nodePortAddresses: ["primary"]).
	NodePortPrimary bool
}

func (c *Config) markBit() string {
	bit := c.MasqueradeBit
	if bit <= 0 || bit > 31 {
		bit = 14
	}
	return hex32(uint32(1) << bit)
}

// family-specific words.
type words struct {
	ip, addrType, loopback string
}

func (c *Config) words() words {
	if c.Family == proxy.IPv6 {
		return words{ip: "ip6", addrType: "ipv6_addr", loopback: "::1"}
	}
	return words{ip: "ip", addrType: "ipv4_addr", loopback: "127.0.0.0/8"}
}
