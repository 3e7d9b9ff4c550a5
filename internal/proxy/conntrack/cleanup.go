package conntrack

import (
	"net/netip"

	"github.com/svcplane/svcplane/internal/proxy"
)

type ipPort struct {
	ip   netip.Addr
	port uint16
}

// CleanStaleEntries deletes, for the UDP ports of snap named in ports
// (nil: every port), the conntrack entries addressed to the port's
// Service IPs (ClusterIP, external and load-balancer IPs) or NodePort
// whose reply source is not a serving endpoint. A port without serving
// endpoints is skipped. Traffic policy, topology and terminating state
// are ignored, as in kube-proxy: changing them must not break existing
// flows. It returns how many entries went.
func CleanStaleEntries(ct Interface, snap *proxy.Snapshot, ports map[proxy.ServicePortName]struct{}) (int, error) {
	byIP, byNodePort := servingEndpoints(snap, ports)
	if len(byIP) == 0 && len(byNodePort) == 0 {
		return 0, nil
	}
	flows, err := ct.ListEntries(snap.Family)
	if err != nil {
		return 0, err
	}
	var filters []Filter
	for _, fl := range flows {
		if fl.Proto != ProtoUDP {
			continue
		}
		if eps, ok := byIP[ipPort{fl.OrigDst, fl.OrigDstPort}]; ok && !eps[fl.ReplySrc] {
			filters = append(filters, Filter{Proto: ProtoUDP, OrigDst: fl.OrigDst, OrigDstPort: fl.OrigDstPort, ReplySrc: fl.ReplySrc})
		}
		if eps, ok := byNodePort[fl.OrigDstPort]; ok && !eps[fl.ReplySrc] {
			filters = append(filters, Filter{Proto: ProtoUDP, OrigDstPort: fl.OrigDstPort, ReplySrc: fl.ReplySrc})
		}
	}
	if len(filters) == 0 {
		return 0, nil
	}
	return ct.ClearEntries(snap.Family, filters...)
}

// servingEndpoints maps each selected UDP port's Service IP:port and
// NodePort to its serving endpoint IPs.
func servingEndpoints(snap *proxy.Snapshot, ports map[proxy.ServicePortName]struct{}) (map[ipPort]map[netip.Addr]bool, map[uint16]map[netip.Addr]bool) {
	byIP, byNodePort := map[ipPort]map[netip.Addr]bool{}, map[uint16]map[netip.Addr]bool{}
	add := func(svc *proxy.ServicePort) {
		if svc.Protocol != proxy.UDP {
			return
		}
		eps := map[netip.Addr]bool{}
		for _, ep := range snap.Endpoints[svc.Name] {
			if ep.Serving {
				eps[ep.IP] = true
			}
		}
		if len(eps) == 0 {
			return
		}
		byIP[ipPort{svc.ClusterIP, svc.Port}] = eps
		for _, ip := range append(append([]netip.Addr{}, svc.ExternalIPs...), svc.LoadBalancerVIPs...) {
			byIP[ipPort{ip, svc.Port}] = eps
		}
		if svc.NodePort != 0 {
			byNodePort[svc.NodePort] = eps
		}
	}
	if ports == nil {
		for _, svc := range snap.Services {
			add(svc)
		}
		return byIP, byNodePort
	}
	for name := range ports {
		if svc := snap.Services[name]; svc != nil {
			add(svc)
		}
	}
	return byIP, byNodePort
}
