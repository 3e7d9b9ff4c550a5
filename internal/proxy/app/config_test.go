package app

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/svcplane/svcplane/internal/proxy"
)

func TestRulesConfigPerFamily(t *testing.T) {
	cfg := Defaults()
	cfg.ClusterCIDR, cfg.HostnameOverride = "10.244.0.0/16, fd00:10:244::/56", " Node-A "
	cfg.NodePortAddresses = []string{"primary", "192.168.0.0/24"}
	if name, _ := cfg.NodeName(); name != "node-a" {
		t.Errorf("node name %q", name)
	}
	v4, err := cfg.RulesConfig(proxy.IPv4)
	if err != nil || len(v4.ClusterCIDRs) != 1 || v4.ClusterCIDRs[0].String() != "10.244.0.0/16" || !v4.NodePortPrimary || len(v4.NodePortAddresses) != 1 {
		t.Errorf("IPv4 rules config %+v %v", v4, err)
	}
	v6, err := cfg.RulesConfig(proxy.IPv6)
	if err != nil || len(v6.ClusterCIDRs) != 1 || v6.Family != proxy.IPv6 || len(v6.NodePortAddresses) != 0 {
		t.Errorf("IPv6 rules config %+v %v", v6, err)
	}
	cfg.ClusterCIDR = "bogus"
	if _, err := cfg.RulesConfig(proxy.IPv4); err == nil || !strings.Contains(err.Error(), "--cluster-cidr") {
		t.Errorf("a bad cluster CIDR: %v", err)
	}
	cfg.ClusterCIDR, cfg.NodePortAddresses = "", []string{"nope"}
	if _, err := cfg.RulesConfig(proxy.IPv4); err == nil {
		t.Error("a bad nodePort address should fail")
	}
}

func TestChooseMode(t *testing.T) {
	noIPVS := func() error { return errors.New("no IPVS") }
	ok := func() error { return nil }
	for _, tc := range []struct {
		mode    string
		support func() error
		want    string
	}{
		{"", ok, ModeNFTables}, {"nftables", noIPVS, ModeNFTables}, {"iptables", noIPVS, ModeIPTables},
		{"userspace", noIPVS, ModeUserspace}, {"ipvs", ok, ModeIPVS}, {"ipvs", noIPVS, ModeIPTables},
	} {
		if got, err := ChooseMode(tc.mode, tc.support); err != nil || got != tc.want {
			t.Errorf("ChooseMode(%q) = %q, %v; want %q", tc.mode, got, err, tc.want)
		}
	}
}

func TestUnknownModeIsRefused(t *testing.T) {
	err := Run(t.Context(), Config{Mode: "bpf"}, nil, Deps{})
	if err == nil || !strings.Contains(err.Error(), `proxy mode "bpf"`) {
		t.Errorf("got %v", err)
	}
}

func TestFamiliesOf(t *testing.T) {
	for _, tc := range []struct {
		addrs []string
		want  []proxy.IPFamily
	}{
		{nil, []proxy.IPFamily{proxy.IPv4}},
		{[]string{"10.244.0.0", "192.168.0.2"}, []proxy.IPFamily{proxy.IPv4}},
		{[]string{"fd00::1"}, []proxy.IPFamily{proxy.IPv6}},
		{[]string{"fd00::1", "192.168.0.2", "fd00::2"}, []proxy.IPFamily{proxy.IPv6, proxy.IPv4}},
		{[]string{"node-a.example", "192.168.0.2", "fd00::1"}, []proxy.IPFamily{proxy.IPv4, proxy.IPv6}},
	} {
		if got := familiesOf(tc.addrs); !slices.Equal(got, tc.want) {
			t.Errorf("familiesOf(%v) = %v, want %v", tc.addrs, got, tc.want)
		}
	}
}
