package proxy

import "testing"

func TestRulesConfigMarkAndLoopback(t *testing.T) {
	for _, c := range []struct {
		bit  int
		want uint32
	}{{0, 0x4000}, {14, 0x4000}, {15, 0x8000}, {-1, 0x4000}, {32, 0x4000}, {31, 0x80000000}} {
		rc := RulesConfig{MasqueradeBit: c.bit}
		if got := rc.MasqueradeMark(); got != c.want {
			t.Errorf("bit %d: mark %#x, want %#x", c.bit, got, c.want)
		}
	}
	if got := (&RulesConfig{Family: IPv4}).Loopback().String(); got != "127.0.0.0/8" {
		t.Errorf("IPv4 loopback %s", got)
	}
	if got := (&RulesConfig{Family: IPv6}).Loopback().String(); got != "::1/128" {
		t.Errorf("IPv6 loopback %s", got)
	}
}
