package userspace

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/knftables"

	"github.com/svcplane/svcplane/internal/proxy"
)

// refusalSnap: web (TCP 80, an external IP, a load-balancer IP and a
// NodePort) with the endpoints eps, and dns (UDP 53, NodePort) with none.
func refusalSnap(fam proxy.IPFamily, np uint16, eps ...proxy.Endpoint) *proxy.Snapshot {
	a := func(v4, v6 string) netip.Addr {
		if fam == proxy.IPv6 {
			return netip.MustParseAddr(v6)
		}
		return netip.MustParseAddr(v4)
	}
	web := proxy.ServicePortName{Namespace: "ns", Name: "web", Port: "p", Protocol: proxy.TCP}
	dns := proxy.ServicePortName{Namespace: "ns", Name: "dns", Port: "p", Protocol: proxy.UDP}
	return &proxy.Snapshot{Family: fam,
		Services: map[proxy.ServicePortName]*proxy.ServicePort{
			web: {Name: web, Protocol: proxy.TCP, ClusterIP: a("10.96.0.10", "fd00:96::10"), Port: 80, NodePort: np,
				ExternalIPs: []netip.Addr{a("192.0.2.10", "2001:db8::10")}, LoadBalancerVIPs: []netip.Addr{a("198.51.100.10", "2001:db8:1::10")}},
			dns: {Name: dns, Protocol: proxy.UDP, ClusterIP: a("10.96.0.53", "fd00:96::53"), Port: 53, NodePort: np},
		},
		Endpoints: map[proxy.ServicePortName][]proxy.Endpoint{web: eps}}
}

func refusalProxier(t *testing.T, fam proxy.IPFamily, snap **proxy.Snapshot) (*Proxier, *knftables.Fake) {
	t.Helper()
	listen := netip.MustParseAddr("127.0.0.1")
	if fam == proxy.IPv6 {
		listen = netip.MustParseAddr("::1")
	}
	fake := knftables.NewFake(nftFamily(fam), TableName)
	p, err := NewProxier(Config{Family: fam, ListenAddr: listen}, NewRedirector(fake, fam), func() *proxy.Snapshot { return *snap }, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	return p, fake
}

// A service port without endpoints is not redirected; the table rejects
// it (TCP with a reset, UDP with ICMP) on every address and its NodePort,
// and stops as soon as it has endpoints. With a Local external policy and
// no local endpoint, external traffic is dropped instead.
func TestNoEndpointRefusals(t *testing.T) {
	for _, fam := range []proxy.IPFamily{proxy.IPv4, proxy.IPv6} {
		t.Run(fmt.Sprintf("IPv%d", fam), func(t *testing.T) {
			np := freePort(t)
			ip, lo, vip, ext, lb, dns := "ip", "127.0.0.0/8", "10.96.0.10", "192.0.2.10", "198.51.100.10", "10.96.0.53"
			epIP := netip.MustParseAddr("10.244.1.2")
			if fam == proxy.IPv6 {
				ip, lo, vip, ext, lb, dns = "ip6", "::1", "fd00:96::10", "2001:db8::10", "2001:db8:1::10", "fd00:96::53"
				epIP = netip.MustParseAddr("fd00:244::2")
			}
			nodePort := func(proto, verdict string) string {
				return fmt.Sprintf("fib daddr type local %s daddr != %s %s dport %d %s", ip, lo, proto, np, verdict)
			}
			dnsRules := []string{nodePort("udp", "reject"), ip + " daddr " + dns + " udp dport 53 reject"}
			snap := refusalSnap(fam, np)
			p, fake := refusalProxier(t, fam, &snap)
			if err := p.SyncProxyRules(true); err != nil {
				t.Fatal(err)
			}
			want := append(slices.Clone(dnsRules), nodePort("tcp", "reject with tcp reset"))
			for _, a := range []string{vip, ext, lb} {
				want = append(want, ip+" daddr "+a+" tcp dport 80 reject with tcp reset")
			}
			slices.Sort(want)
			if got := ruleStrings(fake, chainRefusals); !slices.Equal(got, want) {
				t.Errorf("refusals:\n got %q\nwant %q", got, want)
			}
			if got := portalStrings(fake); len(got) != 0 {
				t.Errorf("ports without endpoints are redirected: %q", got)
			}
			for _, hook := range []string{"input", "forward", "output"} {
				c := fake.Table.Chains["filter-"+hook]
				if c == nil || *c.Hook != knftables.BaseChainHook(hook) || *c.Type != knftables.FilterType ||
					len(c.Rules) != 1 || c.Rules[0].Rule != "ct state new jump "+chainRefusals {
					t.Errorf("filter-%s: %s", hook, fake.Dump())
				}
			}

			// web gets an endpoint on another node: redirected again.
			remote := proxy.Endpoint{IP: epIP, Port: 8080, Ready: true, Serving: true, NodeName: "node-b"}
			snap = refusalSnap(fam, np, remote)
			if err := p.SyncProxyRules(false); err != nil {
				t.Fatal(err)
			}
			want = slices.Clone(dnsRules)
			slices.Sort(want)
			if got := ruleStrings(fake, chainRefusals); !slices.Equal(got, want) {
				t.Errorf("refusals with endpoints:\n got %q\nwant %q", got, want)
			}
			if got := portalStrings(fake); len(got) != 3 {
				t.Errorf("portals with endpoints: %q", got)
			}

			// externalTrafficPolicy: Local without a local endpoint: the
			// cluster IP is still redirected, external traffic dropped.
			snap = refusalSnap(fam, np, remote)
			for _, svc := range snap.Services {
				svc.ExternalPolicyLocal = true
			}
			if err := p.SyncProxyRules(false); err != nil {
				t.Fatal(err)
			}
			want = append(slices.Clone(dnsRules), nodePort("tcp", "drop"),
				ip+" daddr "+ext+" tcp dport 80 drop", ip+" daddr "+lb+" tcp dport 80 drop")
			slices.Sort(want)
			if got := ruleStrings(fake, chainRefusals); !slices.Equal(got, want) {
				t.Errorf("Local policy refusals:\n got %q\nwant %q", got, want)
			}
			if got := portalStrings(fake); len(got) != 1 || !strings.HasPrefix(got[0], vip+" . tcp . 80 : ") {
				t.Errorf("Local policy portals: %q", got)
			}
			if v, _ := p.Route(epIP, netip.MustParseAddr(ext), proxy.TCP, 80, func(netip.Addr) bool { return false }); v != verdictDrop {
				t.Errorf("Route to the external IP: %q, want drop", v)
			}
		})
	}
}
