package proxy

import (
	"net/netip"
	"testing"
)

func TestStaleUDPFlows(t *testing.T) {
	name := ServicePortName{Namespace: "ns", Name: "dns", Port: "dns", Protocol: UDP}
	svc := &ServicePort{Name: name, Protocol: UDP, ClusterIP: netip.MustParseAddr("10.96.0.53"), Port: 53, NodePort: 30053}
	ep := func(ip string) Endpoint { return Endpoint{IP: netip.MustParseAddr(ip), Port: 53, Ready: true} }
	snap := func(eps ...Endpoint) *Snapshot {
		return &Snapshot{Services: map[ServicePortName]*ServicePort{name: svc}, Endpoints: map[ServicePortName][]Endpoint{name: eps}}
	}
	// no endpoints → one: flush the service IP and the node port.
	got := StaleUDPFlows(snap(), snap(ep("10.244.1.2")))
	if len(got) != 2 || got[0].Endpoint.IsValid() || got[0].Dst != svc.ClusterIP || got[1].Port != 30053 {
		t.Errorf("new endpoints: %+v", got)
	}
	// two → one: flows to the removed endpoint.
	got = StaleUDPFlows(snap(ep("10.244.1.2"), ep("10.244.2.3")), snap(ep("10.244.1.2")))
	if len(got) != 2 || got[0].Endpoint != netip.MustParseAddr("10.244.2.3") {
		t.Errorf("removed endpoint: %+v", got)
	}
	if got := StaleUDPFlows(snap(ep("10.244.1.2")), snap(ep("10.244.1.2"))); len(got) != 0 {
		t.Errorf("no change: %+v", got)
	}
}
