package proxy

import "net/netip"

// StaleFlow names UDP conntrack entries to delete after a sync: flows
// whose original destination is Dst (any when invalid) and port Port,
// and, when Endpoint is valid, only those DNATed to it.
type StaleFlow struct {
	Dst      netip.Addr
	Port     uint16
	Endpoint netip.Addr
}

// StaleUDPFlows returns the UDP conntrack entries a sync from prev to cur
// leaves wrong, as kube-proxy computes them: flows to a removed endpoint
// (they would keep going to it), and flows to a service port that had no
// endpoints and now has some (they were cached while the traffic was
// rejected or unNATed). prev nil means nothing was installed.
func StaleUDPFlows(prev, cur *Snapshot) []StaleFlow {
	var out []StaleFlow
	if prev != nil {
		for name, svc := range prev.Services {
			if svc.Protocol != UDP {
				continue
			}
			still := map[string]bool{}
			for _, ep := range cur.Endpoints[name] {
				still[ep.String()] = usable(ep)
			}
			for _, ep := range prev.Endpoints[name] {
				if usable(ep) && !still[ep.String()] {
					out = append(out, flowsTo(svc, ep.IP)...)
				}
			}
		}
	}
	for name, svc := range cur.Services {
		if svc.Protocol != UDP || !anyUsable(cur.Endpoints[name]) {
			continue
		}
		if prev != nil && prev.Services[name] != nil && anyUsable(prev.Endpoints[name]) {
			continue
		}
		out = append(out, flowsTo(svc, netip.Addr{})...)
	}
	return out
}

func usable(ep Endpoint) bool { return ep.Ready || (ep.Serving && ep.Terminating) }

func anyUsable(eps []Endpoint) bool {
	for _, ep := range eps {
		if usable(ep) {
			return true
		}
	}
	return false
}

// flowsTo lists the service port's destinations.
func flowsTo(svc *ServicePort, ep netip.Addr) []StaleFlow {
	out := []StaleFlow{{Dst: svc.ClusterIP, Port: svc.Port, Endpoint: ep}}
	for _, ip := range append(append([]netip.Addr{}, svc.ExternalIPs...), svc.LoadBalancerVIPs...) {
		out = append(out, StaleFlow{Dst: ip, Port: svc.Port, Endpoint: ep})
	}
	if svc.NodePort != 0 {
		out = append(out, StaleFlow{Port: svc.NodePort, Endpoint: ep})
	}
	return out
}
