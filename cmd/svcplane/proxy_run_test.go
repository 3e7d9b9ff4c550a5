package main

import (
	"context"
	"net/netip"
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

// TestRunProxyDualStack runs the proxy command's wiring against a fake
// API server for a node with addresses of both families: one Proxier per
// family, each syncing its own table, and the UDP conntrack cleanup
// after the sync.
func TestRunProxyDualStack(t *testing.T) {
	node := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-a"}, Status: v1.NodeStatus{Addresses: []v1.NodeAddress{
		{Type: v1.NodeInternalIP, Address: "192.168.0.2"}, {Type: v1.NodeInternalIP, Address: "fd00::2"}}}}
	svc := &v1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "dns"}, Spec: v1.ServiceSpec{
		Type: v1.ServiceTypeClusterIP, ClusterIP: "10.96.0.10", ClusterIPs: []string{"10.96.0.10", "fd00:96::10"},
		Ports: []v1.ServicePort{{Name: "dns", Port: 53, Protocol: v1.ProtocolUDP}}}}
	client := fake.NewClientset(node, svc, dnsSlice("dns-4", discovery.AddressTypeIPv4, "10.244.1.2"),
		dnsSlice("dns-6", discovery.AddressTypeIPv6, "fd00:244::2"))

	ct := conntrack.NewFake()
	stale := conntrack.Flow{Proto: conntrack.ProtoUDP, OrigDst: netip.MustParseAddr("10.96.0.10"), OrigDstPort: 53,
		ReplySrc: netip.MustParseAddr("10.96.0.10")} // cached before the Service had endpoints
	ct.Add(proxy.IPv4, stale)
	tables := map[proxy.IPFamily]*knftables.Fake{}
	synced := make(chan proxy.IPFamily, 16)
	o := newProxyOptions()
	o.hostname, o.healthzAddr, o.metricsAddr = "Node-A", "", ""
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
		synced:    func(f proxy.IPFamily, _ *proxy.Snapshot) { synced <- f },
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- runProxyWithClient(ctx, o, client) }()
	seen := map[proxy.IPFamily]bool{}
	for len(seen) < 2 {
		select {
		case f := <-synced:
			seen[f] = true
		case err := <-done:
			t.Fatalf("proxy stopped: %v", err)
		case <-time.After(30 * time.Second):
			t.Fatalf("families synced: %v", seen)
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
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
