package dns

import (
	"net/netip"
	"strconv"
	"strings"
)

// fqdn adds the trailing dot if s lacks it.
func fqdn(s string) string {
	if strings.HasSuffix(s, ".") {
		return s
	}
	return s + "."
}

// dashed is an address as one DNS label: 10.244.1.5 → 10-244-1-5,
// fd00::5 → fd00--5 (the form CoreDNS gives endpoints without a
// hostname and the deprecated pod records use).
func dashed(a netip.Addr) string {
	return strings.NewReplacer(".", "-", ":", "-").Replace(a.String())
}

// undashed parses a label made by dashed; ok is false for anything else.
func undashed(label string) (netip.Addr, bool) {
	if strings.Count(label, "-") == 3 {
		if a, err := netip.ParseAddr(strings.ReplaceAll(label, "-", ".")); err == nil && a.Is4() {
			return a, true
		}
	}
	a, err := netip.ParseAddr(strings.ReplaceAll(label, "-", ":"))
	if err != nil || !a.Is6() || a.Zone() != "" {
		return netip.Addr{}, false
	}
	return a, true
}

// reverseAddr parses a full reverse name (lowercase, with the trailing
// dot): "4.3.2.1.in-addr.arpa." or the 32 nibbles of ip6.arpa. ok is false
// for a partial or malformed one.
func reverseAddr(name string) (netip.Addr, bool) {
	switch {
	case strings.HasSuffix(name, ".in-addr.arpa."):
		parts := strings.Split(strings.TrimSuffix(name, ".in-addr.arpa."), ".")
		if len(parts) != 4 {
			return netip.Addr{}, false
		}
		var b [4]byte
		for i, p := range parts {
			n, err := strconv.ParseUint(p, 10, 8)
			if err != nil || (len(p) > 1 && p[0] == '0') {
				return netip.Addr{}, false
			}
			b[3-i] = byte(n)
		}
		return netip.AddrFrom4(b), true
	case strings.HasSuffix(name, ".ip6.arpa."):
		parts := strings.Split(strings.TrimSuffix(name, ".ip6.arpa."), ".")
		if len(parts) != 32 {
			return netip.Addr{}, false
		}
		var b [16]byte
		for i, p := range parts {
			n, err := strconv.ParseUint(p, 16, 4)
			if err != nil || len(p) != 1 {
				return netip.Addr{}, false
			}
			idx := 31 - i // nibble index from the most significant
			if idx%2 == 0 {
				b[idx/2] |= byte(n) << 4
			} else {
				b[idx/2] |= byte(n)
			}
		}
		return netip.AddrFrom16(b), true
	}
	return netip.Addr{}, false
}

// isReverse reports whether name (lowercase, trailing dot) is in a
// reverse zone.
func isReverse(name string) bool {
	return name == "in-addr.arpa." || name == "ip6.arpa." ||
		strings.HasSuffix(name, ".in-addr.arpa.") || strings.HasSuffix(name, ".ip6.arpa.")
}

// inZone returns the labels of name left of zone (both lowercase, with
// trailing dots), nil and true for the apex, and ok false outside it.
func inZone(name, zone string) (labels []string, ok bool) {
	if name == zone {
		return nil, true
	}
	if !strings.HasSuffix(name, "."+zone) {
		return nil, false
	}
	return strings.Split(strings.TrimSuffix(name, "."+zone), "."), true
}
