package app

import (
	"context"
	"errors"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	discovery "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/knftables"

	"github.com/svcplane/svcplane/internal/proxy"
	"github.com/svcplane/svcplane/internal/proxy/conntrack"
	"github.com/svcplane/svcplane/internal/proxy/iptables"
	"github.com/svcplane/svcplane/internal/proxy/nftables"
)

func dnsSlice(name string, at discovery.AddressType, addr string) *discovery.EndpointSlice {
	return &discovery.EndpointSlice{
		ObjectMeta:  metav1.ObjectMeta{Namespace: "ns", Name: name, Labels: map[string]string{discovery.LabelServiceName: "dns"}},
		AddressType: at,
		Ports:       []discovery.EndpointPort{{Name: ptr.To("dns"), Port: ptr.To[int32](5353), Protocol: ptr.To(v1.ProtocolUDP)}},
		Endpoints:   []discovery.Endpoint{{Addresses: []string{addr}, NodeName: ptr.To("node-b")}},
	}
}

// dualStackClient is a fake API server with a dual-stack node and a UDP
// Service with endpoints of both families.
func dualStackClient() *fake.Clientset {
	node := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-a"}, Status: v1.NodeStatus{Addresses: []v1.NodeAddress{
		{Type: v1.NodeInternalIP, Address: "192.168.0.2"}, {Type: v1.NodeInternalIP, Address: "fd00::2"}}}}
	svc := &v1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "dns"}, Spec: v1.ServiceSpec{
		Type: v1.ServiceTypeClusterIP, ClusterIP: "10.96.0.10", ClusterIPs: []string{"10.96.0.10", "fd00:96::10"},
		Ports: []v1.ServicePort{{Name: "dns", Port: 53, Protocol: v1.ProtocolUDP}}}}
	return fake.NewClientset(node, svc, dnsSlice("dns-4", discovery.AddressTypeIPv4, "10.244.1.2"),
		dnsSlice("dns-6", discovery.AddressTypeIPv6, "fd00:244::2"))
}

// runUntilBothFamiliesSynced runs the proxy with cfg and deps until each
// family has synced once, then stops it.
func runUntilBothFamiliesSynced(t *testing.T, cfg Config, deps Deps) {
	t.Helper()
	synced := make(chan proxy.IPFamily, 16)
	cfg.HostnameOverride, cfg.HealthzBindAddress, cfg.MetricsBindAddress = "Node-A", "", ""
	deps.Synced = func(f proxy.IPFamily, _ *proxy.Snapshot) { synced <- f }
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Run(ctx, cfg, dualStackClient(), deps) }()
	seen := map[proxy.IPFamily]bool{}
	for len(seen) < 2 {
		select {
		case f := <-synced:
			seen[f] = true
		case err := <-done:
			cancel()
			t.Fatalf("proxy stopped: %v", err)
		case <-time.After(30 * time.Second):
			cancel()
			t.Fatalf("families synced: %v", seen)
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// staleUDPConntrack is a conntrack fake holding an entry cached before the
// Service had endpoints, which the first sync must delete.
func staleUDPConntrack() *conntrack.Fake {
	ct := conntrack.NewFake()
	ct.Add(proxy.IPv4, conntrack.Flow{Proto: conntrack.ProtoUDP, OrigDst: netip.MustParseAddr("10.96.0.10"), OrigDstPort: 53,
		ReplySrc: netip.MustParseAddr("10.96.0.10")})
	return ct
}

// TestRunProxyDualStack runs the proxy against a fake
// API server for a node with addresses of both families: one Proxier per
// family, each syncing its own table, and the UDP conntrack cleanup
// after the sync.
func TestRunProxyDualStack(t *testing.T) {
	ct := staleUDPConntrack()
	tables := map[proxy.IPFamily]*knftables.Fake{}
	deps := Deps{
		NFT: func(f proxy.IPFamily) (knftables.Interface, error) {
			fam := knftables.IPv4Family
			if f == proxy.IPv6 {
				fam = knftables.IPv6Family
			}
			tables[f] = knftables.NewFake(fam, nftables.TableName)
			return tables[f], nil
		},
		Conntrack: ct,
	}
	var settled atomic.Int32
	deps.Settled = func() { settled.Add(1) }
	runUntilBothFamiliesSynced(t, Defaults(), deps)
	// Run waited for the sync loops: both families' first syncs ran
	// their callbacks to the end.
	if n := settled.Load(); n != 1 {
		t.Errorf("Settled called %d times after both families synced, want once", n)
	}
	for fam, key := range map[proxy.IPFamily][]string{proxy.IPv4: {"10.96.0.10", "udp", "53"}, proxy.IPv6: {"fd00:96::10", "udp", "53"}} {
		m := tables[fam].Table.Maps["service-ips"]
		if m == nil || m.FindElement(key...) == nil {
			t.Errorf("IPv%d table lacks the Service %v:\n%s", fam, key, tables[fam].Dump())
		}
	}
	if left, _ := ct.ListEntries(proxy.IPv4); len(left) != 0 {
		t.Errorf("stale UDP entry kept: %v", left)
	}
}

// TestRunProxyDualStackIPTables: the iptables mode runs one Proxier per
// family too (iptables and ip6tables), and the ipvs mode falls back to it
// on a kernel without IPVS.
func TestRunProxyDualStackIPTables(t *testing.T) {
	for _, mode := range []string{"iptables", "ipvs"} {
		t.Run(mode, func(t *testing.T) {
			ct := staleUDPConntrack()
			tables := map[proxy.IPFamily]*iptables.Fake{}
			cfg := Defaults()
			cfg.Mode = mode
			deps := Deps{
				IPTables: func(f proxy.IPFamily, _ iptables.Variant) (iptables.Interface, error) {
					tables[f] = iptables.NewFake()
					return tables[f], nil
				},
				IPVSSupport: func() error { return errors.New("no IPVS in this kernel") },
				Conntrack:   ct,
			}
			runUntilBothFamiliesSynced(t, cfg, deps)
			for fam, want := range map[proxy.IPFamily][]string{
				proxy.IPv4: {"-d 10.96.0.10/32 --dport 53 -j KUBE-SVC-", "--to-destination 10.244.1.2:5353"},
				proxy.IPv6: {"-d fd00:96::10/128 --dport 53 -j KUBE-SVC-", "--to-destination [fd00:244::2]:5353"},
			} {
				dump := tables[fam].Dump()
				for _, w := range want {
					if !strings.Contains(dump, w) {
						t.Errorf("IPv%d rules lack %q:\n%s", fam, w, dump)
					}
				}
				if other := map[proxy.IPFamily]string{proxy.IPv4: "fd00:", proxy.IPv6: "10.96.0.10"}[fam]; strings.Contains(dump, other) {
					t.Errorf("IPv%d rules hold the other family's %s", fam, other)
				}
			}
			if left, _ := ct.ListEntries(proxy.IPv4); len(left) != 0 {
				t.Errorf("stale UDP entry kept: %v", left)
			}
		})
	}
}

// TestSecondFamilyDropped: the IPv6 backend can't be built, so the proxy
// runs single-stack on IPv4; when the first family's can't, Run fails.
func TestSecondFamilyDropped(t *testing.T) {
	nft := func(f proxy.IPFamily) (knftables.Interface, error) {
		if f == proxy.IPv6 {
			return nil, errors.New("no ip6 nftables")
		}
		return knftables.NewFake(knftables.IPv4Family, nftables.TableName), nil
	}
	synced := make(chan proxy.IPFamily, 16)
	cfg := Defaults()
	cfg.HostnameOverride, cfg.HealthzBindAddress, cfg.MetricsBindAddress = "node-a", "", ""
	deps := Deps{NFT: nft, Conntrack: conntrack.NewFake(), Synced: func(f proxy.IPFamily, _ *proxy.Snapshot) { synced <- f }}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Run(ctx, cfg, dualStackClient(), deps) }()
	select {
	case f := <-synced:
		if f != proxy.IPv4 {
			t.Errorf("IPv%d synced", f)
		}
	case err := <-done:
		t.Fatalf("proxy stopped: %v", err)
	case <-time.After(30 * time.Second):
		t.Fatal("IPv4 never synced")
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}

	cfg.ClusterCIDR = "fd00:10:244::/56" // IPv6 first
	err := Run(context.Background(), cfg, dualStackClient(), deps)
	if err == nil || !strings.Contains(err.Error(), "no ip6 nftables") {
		t.Errorf("first family unbuildable: %v", err)
	}
}
