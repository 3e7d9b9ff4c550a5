package main

import (
	"context"
	"errors"
	"net/netip"
	"strings"
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

// runUntilBothFamiliesSynced runs the proxy command's wiring with o until
// each family has synced once, then stops it.
func runUntilBothFamiliesSynced(t *testing.T, o *proxyOptions) {
	t.Helper()
	synced := make(chan proxy.IPFamily, 16)
	o.hostname, o.healthzAddr, o.metricsAddr = "Node-A", "", ""
	o.deps.synced = func(f proxy.IPFamily, _ *proxy.Snapshot) { synced <- f }
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- runProxyWithClient(ctx, o, dualStackClient()) }()
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

// TestRunProxyDualStack runs the proxy command's wiring against a fake
// API server for a node with addresses of both families: one Proxier per
// family, each syncing its own table, and the UDP conntrack cleanup
// after the sync.
func TestRunProxyDualStack(t *testing.T) {
	ct := staleUDPConntrack()
	tables := map[proxy.IPFamily]*knftables.Fake{}
	o := newProxyOptions()
	o.deps = proxyDeps{
		nft: func(f proxy.IPFamily) (knftables.Interface, error) {
			fam := knftables.IPv4Family
			if f == proxy.IPv6 {
				fam = knftables.IPv6Family
			}
			tables[f] = knftables.NewFake(fam, nftables.TableName)
			return tables[f], nil
		},
		conntrack: ct,
	}
	runUntilBothFamiliesSynced(t, o)
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
			o := newProxyOptions()
			o.mode = mode
			o.deps = proxyDeps{
				iptables: func(f proxy.IPFamily, _ iptables.Variant) (iptables.Interface, error) {
					tables[f] = iptables.NewFake()
					return tables[f], nil
				},
				ipvs:      func() error { return errors.New("no IPVS in this kernel") },
				conntrack: ct,
			}
			runUntilBothFamiliesSynced(t, o)
			if o.mode != "iptables" {
				t.Errorf("mode %s after the fallback", o.mode)
			}
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

func TestCountNoLocalEndpoints(t *testing.T) {
	name := func(n string) proxy.ServicePortName {
		return proxy.ServicePortName{Namespace: "ns", Name: n, Protocol: proxy.TCP}
	}
	remote := []proxy.Endpoint{{IP: netip.MustParseAddr("10.244.2.3"), Port: 80, Ready: true, Serving: true}}
	local := []proxy.Endpoint{{IP: netip.MustParseAddr("10.244.1.2"), Port: 80, Ready: true, Serving: true, IsLocal: true}}
	snap := &proxy.Snapshot{
		Services: map[proxy.ServicePortName]*proxy.ServicePort{
			name("int-remote"): {Name: name("int-remote"), InternalPolicyLocal: true},
			name("ext-remote"): {Name: name("ext-remote"), ExternalPolicyLocal: true, NodePort: 30001},
			name("ext-local"):  {Name: name("ext-local"), ExternalPolicyLocal: true, NodePort: 30002},
			name("ext-none"):   {Name: name("ext-none"), ExternalPolicyLocal: true, NodePort: 30003},
			name("cluster"):    {Name: name("cluster")},
		},
		Endpoints: map[proxy.ServicePortName][]proxy.Endpoint{
			name("int-remote"): remote, name("ext-remote"): remote, name("ext-local"): local, name("cluster"): remote,
		},
	}
	if internal, external := countNoLocalEndpoints(snap); internal != 1 || external != 1 {
		t.Errorf("internal=%d external=%d, want 1 and 1", internal, external)
	}
}
