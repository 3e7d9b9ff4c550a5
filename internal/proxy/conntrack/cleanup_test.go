package conntrack

import (
	"net/netip"
	"testing"

	"github.com/svcplane/svcplane/internal/proxy"
)

var (
	dnsName = proxy.ServicePortName{Namespace: "ns", Name: "dns", Port: "dns", Protocol: proxy.UDP}
	webName = proxy.ServicePortName{Namespace: "ns", Name: "web", Port: "http", Protocol: proxy.TCP}
	a       = netip.MustParseAddr
)

func snapshot(dnsEndpoints ...proxy.Endpoint) *proxy.Snapshot {
	return &proxy.Snapshot{
		Family: proxy.IPv4,
		Services: map[proxy.ServicePortName]*proxy.ServicePort{
			dnsName: {Name: dnsName, Protocol: proxy.UDP, ClusterIP: a("10.96.0.10"), Port: 53, NodePort: 30053,
				ExternalIPs: []netip.Addr{a("192.0.2.10")}},
			webName: {Name: webName, Protocol: proxy.TCP, ClusterIP: a("10.96.0.20"), Port: 53},
		},
		Endpoints: map[proxy.ServicePortName][]proxy.Endpoint{
			dnsName: dnsEndpoints,
			webName: {{IP: a("10.244.9.9"), Port: 53, Ready: true, Serving: true}},
		},
	}
}

func ep(ip string, serving bool) proxy.Endpoint {
	return proxy.Endpoint{IP: a(ip), Port: 5353, Ready: serving, Serving: serving}
}

func udp(dst string, port uint16, replySrc string) Flow {
	return Flow{Proto: ProtoUDP, OrigDst: a(dst), OrigDstPort: port, ReplySrc: a(replySrc)}
}

func TestCleanStaleEntries(t *testing.T) {
	keep := []Flow{
		udp("10.96.0.10", 53, "10.244.1.2"),                                                     // to a serving endpoint
		udp("192.0.2.10", 53, "10.244.1.2"),                                                     // external IP, serving endpoint
		udp("192.168.0.2", 30053, "10.244.1.2"),                                                 // NodePort, serving endpoint
		udp("10.96.0.99", 53, "10.96.0.99"),                                                     // not a Service
		{Proto: ProtoTCP, OrigDst: a("10.96.0.10"), OrigDstPort: 53, ReplySrc: a("10.244.7.7")}, // TCP is left alone
		udp("10.96.0.20", 53, "10.244.7.7"),                                                     // a TCP Service's address
	}
	stale := []Flow{
		udp("10.96.0.10", 53, "10.244.7.7"),     // endpoint removed
		udp("10.96.0.10", 53, "10.96.0.10"),     // from before the first endpoint (never DNATed)
		udp("192.0.2.10", 53, "10.244.7.7"),     // external IP, endpoint removed
		udp("192.168.0.2", 30053, "10.244.7.7"), // NodePort, endpoint removed
		udp("10.96.0.10", 53, "10.244.3.3"),     // to an endpoint that is not serving
	}
	ct := NewFake()
	ct.Add(proxy.IPv4, append(append([]Flow{}, keep...), stale...)...)
	snap := snapshot(ep("10.244.1.2", true), ep("10.244.3.3", false))
	n, err := CleanStaleEntries(ct, snap, nil)
	if err != nil {
		t.Fatal(err)
	}
	if n != len(stale) {
		t.Errorf("deleted %d entries, want %d", n, len(stale))
	}
	left, _ := ct.ListEntries(proxy.IPv4)
	if len(left) != len(keep) {
		t.Fatalf("left %v, want %v", left, keep)
	}
	for i := range keep {
		if left[i] != keep[i] {
			t.Errorf("entry %d: got %+v want %+v", i, left[i], keep[i])
		}
	}
}

func TestCleanStaleEntriesSkips(t *testing.T) {
	flow := udp("10.96.0.10", 53, "10.244.7.7")
	for name, tc := range map[string]struct {
		snap  *proxy.Snapshot
		ports map[proxy.ServicePortName]struct{}
	}{
		"no serving endpoints":   {snapshot(ep("10.244.3.3", false)), nil},
		"port not in the change": {snapshot(ep("10.244.1.2", true)), map[proxy.ServicePortName]struct{}{webName: {}}},
	} {
		ct := NewFake()
		ct.Add(proxy.IPv4, flow)
		if n, err := CleanStaleEntries(ct, tc.snap, tc.ports); err != nil || n != 0 {
			t.Errorf("%s: deleted %d (%v), want none", name, n, err)
		}
	}
	ct := NewFake()
	ct.Add(proxy.IPv4, flow)
	if n, _ := CleanStaleEntries(ct, snapshot(ep("10.244.1.2", true)), map[proxy.ServicePortName]struct{}{dnsName: {}}); n != 1 {
		t.Errorf("changed port: deleted %d, want 1", n)
	}
}
