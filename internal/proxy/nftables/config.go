package nftables

import (
	"github.com/svcplane/svcplane/internal/proxy"
)

// TableName is the nftables table the backend owns (one per family).
const TableName = "svcplane"

// Config is the backend's static configuration, shared with the
// iptables backend.
type Config = proxy.RulesConfig

func markBit(c *Config) string { return hex32(c.MasqueradeMark()) }

// family-specific words.
type words struct {
	ip, addrType, loopback string
}

func wordsOf(c *Config) words {
	if c.Family == proxy.IPv6 {
		return words{ip: "ip6", addrType: "ipv6_addr", loopback: "::1"}
	}
	return words{ip: "ip", addrType: "ipv4_addr", loopback: "127.0.0.0/8"}
}
