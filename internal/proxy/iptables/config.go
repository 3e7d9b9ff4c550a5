package iptables

import (
	"fmt"
	"net/netip"

	"github.com/svcplane/svcplane/internal/proxy"
)

// Config is the backend's static configuration, shared with the
// nftables backend.
type Config = proxy.RulesConfig

// markMasq is the mark value ("0x4000") and the value/mask form.
func markMasq(c *Config) (string, string) {
	v := fmt.Sprintf("%#x", c.MasqueradeMark())
	return v, v + "/" + v
}

// hostPrefix renders an address as a host prefix ("10.0.0.1/32"), the
// form iptables-save prints.
func hostPrefix(a netip.Addr) string {
	return netip.PrefixFrom(a, a.BitLen()).String()
}
