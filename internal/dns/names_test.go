package dns

import (
	"net/netip"
	"os"
	"testing"
)

func writeFile(path, s string) error { return os.WriteFile(path, []byte(s), 0o644) }

// TestNames: dashed labels and reverse names round-trip; malformed or
// partial reverse names are not addresses.
func TestNames(t *testing.T) {
	for _, s := range []string{"10.244.1.5", "0.0.0.0", "fd00:244:1::5", "2001:db8::", "::1"} {
		a := netip.MustParseAddr(s)
		if got, ok := undashed(dashed(a)); !ok || got != a {
			t.Errorf("undashed(dashed(%s)) = %v %v", s, got, ok)
		}
	}
	for _, bad := range []string{"10-244-1", "web-0", "10-244-1-256", "fd00-zz--1"} {
		if a, ok := undashed(bad); ok {
			t.Errorf("undashed(%q) = %v", bad, a)
		}
	}
	for name, want := range map[string]string{
		"5.1.244.10.in-addr.arpa.": "10.244.1.5",
		"4.1.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.6.9.0.0.0.0.d.f.ip6.arpa.": "fd00:96::14",
		"1.244.10.in-addr.arpa.":     "",
		"05.1.244.10.in-addr.arpa.":  "",
		"300.1.244.10.in-addr.arpa.": "",
		"4.1.ip6.arpa.":              "",
		"x.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.6.9.0.0.0.0.d.f.ip6.arpa.": "",
	} {
		a, ok := reverseAddr(name)
		if (want == "") == ok || (ok && a.String() != want) {
			t.Errorf("reverseAddr(%q) = %v %v, want %q", name, a, ok, want)
		}
	}
}
