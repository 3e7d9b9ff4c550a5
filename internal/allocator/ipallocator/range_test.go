package ipallocator

import (
	"net/netip"
	"testing"
)

func TestRangeEdges(t *testing.T) {
	cases := []struct {
		cidr        string
		size        uint64
		first, last string
		outside     []string
	}{
		{"10.96.0.0/12", 1<<20 - 2, "10.96.0.1", "10.111.255.254", []string{"10.96.0.0", "10.111.255.255", "10.112.0.0"}},
		{"192.168.1.0/30", 2, "192.168.1.1", "192.168.1.2", []string{"192.168.1.0", "192.168.1.3"}},
		{"fd00::/64", ^uint64(0), "fd00::1", "fd00::ffff:ffff:ffff:ffff", []string{"fd00::", "fd00:0:0:1::", "10.0.0.1"}},
		{"fd00::/120", 255, "fd00::1", "fd00::ff", []string{"fd00::", "fd00::100"}},
	}
	for _, c := range cases {
		r, err := ParseRange(c.cidr, 64)
		if err != nil {
			t.Fatal(err)
		}
		if r.Size() != c.size {
			t.Errorf("%s: size %d, want %d", c.cidr, r.Size(), c.size)
		}
		if got := r.Addr(0).String(); got != c.first {
			t.Errorf("%s: first %s, want %s", c.cidr, got, c.first)
		}
		if got := r.Addr(r.Size() - 1).String(); got != c.last {
			t.Errorf("%s: last %s, want %s", c.cidr, got, c.last)
		}
		for i, ip := range []string{c.first, c.last} {
			off, ok := r.Offset(netip.MustParseAddr(ip))
			if want := []uint64{0, r.Size() - 1}[i]; !ok || off != want {
				t.Errorf("%s: Offset(%s)=%d,%v want %d", c.cidr, ip, off, ok, want)
			}
		}
		for _, ip := range c.outside {
			if _, ok := r.Offset(netip.MustParseAddr(ip)); ok {
				t.Errorf("%s: %s must not be allocatable", c.cidr, ip)
			}
		}
	}
	if _, err := ParseRange("fd00::/63", 64); err == nil {
		t.Error("a /63 must be refused")
	}
	if _, err := ParseRange("10.0.0.0/32", 64); err == nil {
		t.Error("a /32 has no usable address")
	}
}
