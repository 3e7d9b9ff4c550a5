package proxytest

import (
	"net/netip"
	"testing"
)

// Tracer follows a packet through one backend's installed state.
type Tracer interface {
	Trace(p Packet) (Fate, error)
}

// RunChecks traces every check's packet and reports each fate that does
// not match; it returns whether all matched (callers then dump their state).
func RunChecks(t testing.TB, tr Tracer, checks []Check) bool {
	t.Helper()
	ok := true
	for _, c := range checks {
		got, err := tr.Trace(c.Packet)
		if err != nil {
			t.Errorf("%s: %v", c.Packet, err)
			ok = false
			continue
		}
		if !c.Want.Matches(got) {
			t.Errorf("%s: got %s, want %s", c.Packet, got, c.Want)
			ok = false
		}
	}
	return ok
}

// ClusterCIDRs is the scenario's cluster CIDR as prefixes (none when unset).
func (pc ProxyConfig) ClusterCIDRs() []netip.Prefix {
	if pc.ClusterCIDR == "" {
		return nil
	}
	return []netip.Prefix{netip.MustParsePrefix(pc.ClusterCIDR)}
}
