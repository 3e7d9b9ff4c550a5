package userspace

import (
	"fmt"
	"net/netip"
	"testing"

	"sigs.k8s.io/knftables"

	"github.com/svcplane/svcplane/internal/proxy"
	"github.com/svcplane/svcplane/internal/proxy/proxytest"
)

func testProxier(t *testing.T, snap **proxy.Snapshot) (*Proxier, *knftables.Fake) {
	t.Helper()
	fake := knftables.NewFake(knftables.IPv4Family, TableName)
	p, err := NewProxier(Config{ListenAddr: netip.MustParseAddr("127.0.0.1")}, NewRedirector(fake, proxy.IPv4),
		func() *proxy.Snapshot { return *snap }, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	return p, fake
}

// TestScenarios runs the shared table through the userspace proxy's
// routing. The proxy opens its own connection to the endpoint, so every
// proxied flow leaves with a node source: masquerading is not compared.
func TestScenarios(t *testing.T) {
	local := func(a netip.Addr) bool { return a == netip.MustParseAddr(proxytest.NodeIP) || a.IsLoopback() }
	for _, sc := range proxytest.Scenarios(t) {
		t.Run(sc.Name, func(t *testing.T) {
			snap := proxytest.Snapshot(proxy.IPv4, sc.Objects...)
			p, _ := testProxier(t, &snap)
			if err := p.SyncProxyRules(true); err != nil {
				t.Fatal(err)
			}
			for _, c := range sc.Checks {
				v, eps := p.Route(netip.MustParseAddr(c.Src), netip.MustParseAddr(c.Dst),
					proxy.Protocol(upper(c.Proto)), uint16(c.Port), local)
				got := proxytest.Fate{Verdict: proxytest.Verdict(v), Endpoints: eps, Masquerade: c.Want.Masquerade}
				if v == "" {
					got.Verdict = proxytest.Accept
				}
				if !c.Want.Matches(got) {
					t.Errorf("%s: got %s, want %s", c.Packet, got, c.Want)
				}
			}
		})
	}
}

func upper(s string) string {
	b := []byte(s)
	for i := range b {
		b[i] -= 'a' - 'A'
	}
	return string(b)
}

func TestRedirectRules(t *testing.T) {
	snap := proxytest.Snapshot(proxy.IPv4, proxytest.Svc("web", "10.96.0.10", 80), proxytest.Slice("web", 8080, "10.244.1.2@"+proxytest.OtherNode))
	p, fake := testProxier(t, &snap)
	if err := p.SyncProxyRules(true); err != nil {
		t.Fatal(err)
	}
	port := p.services[proxy.ServicePortName{Namespace: "ns", Name: "web", Port: "p", Protocol: proxy.TCP}].listeners[kindCluster].port()
	if got := portalStrings(fake); len(got) != 1 || got[0] != fmt.Sprintf("10.96.0.10 . tcp . 80 : %d", port) {
		t.Errorf("portals: %s", fake.Dump())
	}
	snap = proxytest.Snapshot(proxy.IPv4)
	if err := p.SyncProxyRules(false); err != nil {
		t.Fatal(err)
	}
	if n := len(portalStrings(fake)); n != 0 {
		t.Errorf("portals left: %s", fake.Dump())
	}
	if err := Cleanup(t.Context(), fake); err != nil || fake.Table != nil {
		t.Errorf("cleanup: %v %s", err, fake.Dump())
	}
}
