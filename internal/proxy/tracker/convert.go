package tracker

import (
	"net/netip"
	"strings"
	"unique"

	v1 "k8s.io/api/core/v1"
	discovery "k8s.io/api/discovery/v1"

	"github.com/svcplane/svcplane/internal/proxy"
)

// defaultStickyMaxAgeSeconds is sessionAffinityConfig.clientIP.timeoutSeconds' default.
const defaultStickyMaxAgeSeconds = 10800

// ShouldSkipService reports whether kube-proxy ignores the Service:
// ExternalName and headless Services are not proxied.
func ShouldSkipService(svc *v1.Service) bool {
	return svc.Spec.Type == v1.ServiceTypeExternalName ||
		svc.Spec.ClusterIP == v1.ClusterIPNone || svc.Spec.ClusterIP == ""
}

func externallyAccessible(svc *v1.Service) bool {
	switch svc.Spec.Type {
	case v1.ServiceTypeLoadBalancer, v1.ServiceTypeNodePort:
		return true
	}
	return svc.Spec.Type == v1.ServiceTypeClusterIP && len(svc.Spec.ExternalIPs) > 0
}

// ServicePorts converts a Service into the family's ServicePorts; nil when
// the Service is not proxied or has no cluster IP in that family.
func ServicePorts(svc *v1.Service, family proxy.IPFamily) []*proxy.ServicePort {
	if ShouldSkipService(svc) {
		return nil
	}
	clusterIP, ok := firstOfFamily(svc.Spec.ClusterIPs, svc.Spec.ClusterIP, family)
	if !ok {
		return nil
	}
	externalIPs := addrsOfFamily(svc.Spec.ExternalIPs, family)
	var lbVIPs []netip.Addr
	if svc.Spec.Type == v1.ServiceTypeLoadBalancer {
		for _, ing := range svc.Status.LoadBalancer.Ingress {
			if ing.IPMode != nil && *ing.IPMode == v1.LoadBalancerIPModeProxy {
				continue
			}
			lbVIPs = append(lbVIPs, addrsOfFamily([]string{ing.IP}, family)...)
		}
	}
	var ranges []netip.Prefix
	for _, r := range svc.Spec.LoadBalancerSourceRanges {
		if p, err := netip.ParsePrefix(strings.TrimSpace(r)); err == nil && proxy.FamilyOf(p.Addr()) == family {
			ranges = append(ranges, p.Masked())
		}
	}
	sticky := 0
	if svc.Spec.SessionAffinity == v1.ServiceAffinityClientIP {
		sticky = defaultStickyMaxAgeSeconds
		if c := svc.Spec.SessionAffinityConfig; c != nil && c.ClientIP != nil && c.ClientIP.TimeoutSeconds != nil {
			sticky = int(*c.ClientIP.TimeoutSeconds)
		}
	}
	extLocal := externallyAccessible(svc) && svc.Spec.ExternalTrafficPolicy == v1.ServiceExternalTrafficPolicyLocal
	intLocal := svc.Spec.InternalTrafficPolicy != nil && *svc.Spec.InternalTrafficPolicy == v1.ServiceInternalTrafficPolicyLocal
	var hcnp uint16
	if extLocal && svc.Spec.Type == v1.ServiceTypeLoadBalancer {
		hcnp = uint16(svc.Spec.HealthCheckNodePort)
	}
	out := make([]*proxy.ServicePort, 0, len(svc.Spec.Ports))
	for _, p := range svc.Spec.Ports {
		proto := proxy.Protocol(p.Protocol)
		if proto == "" {
			proto = proxy.TCP
		}
		out = append(out, &proxy.ServicePort{
			Name:                     proxy.ServicePortName{Namespace: svc.Namespace, Name: svc.Name, Port: p.Name, Protocol: proto},
			Protocol:                 proto,
			ClusterIP:                clusterIP,
			Port:                     uint16(p.Port),
			NodePort:                 uint16(p.NodePort),
			ExternalIPs:              externalIPs,
			LoadBalancerVIPs:         lbVIPs,
			LoadBalancerSourceRanges: ranges,
			HealthCheckNodePort:      hcnp,
			InternalPolicyLocal:      intLocal,
			ExternalPolicyLocal:      extLocal,
			StickyMaxAgeSeconds:      sticky,
		})
	}
	return out
}

func firstOfFamily(ips []string, ip string, family proxy.IPFamily) (netip.Addr, bool) {
	if len(ips) == 0 {
		ips = []string{ip}
	}
	a := addrsOfFamily(ips, family)
	if len(a) == 0 {
		return netip.Addr{}, false
	}
	return a[0], true
}

func addrsOfFamily(ips []string, family proxy.IPFamily) []netip.Addr {
	var out []netip.Addr
	for _, s := range ips {
		a, err := netip.ParseAddr(strings.TrimSpace(s))
		if err == nil && proxy.FamilyOf(a) == family {
			out = append(out, a.Unmap())
		}
	}
	return out
}

// sliceEndpoints converts an EndpointSlice of the family into endpoints
// per ServicePortName. ok is false for slices of another address type or
// without a service-name label.
func sliceEndpoints(slice *discovery.EndpointSlice, family proxy.IPFamily, nodeName string) (map[proxy.ServicePortName][]proxy.Endpoint, bool) {
	svcName := slice.Labels[discovery.LabelServiceName]
	want := discovery.AddressTypeIPv4
	if family == proxy.IPv6 {
		want = discovery.AddressTypeIPv6
	}
	if svcName == "" || slice.AddressType != want {
		return nil, false
	}
	out := map[proxy.ServicePortName][]proxy.Endpoint{}
	for _, port := range slice.Ports {
		if port.Port == nil {
			continue
		}
		name := proxy.ServicePortName{Namespace: slice.Namespace, Name: svcName, Protocol: proxy.TCP}
		if port.Name != nil {
			name.Port = *port.Name
		}
		if port.Protocol != nil {
			name.Protocol = proxy.Protocol(*port.Protocol)
		}
		eps := out[name]
		if eps == nil {
			eps = make([]proxy.Endpoint, 0, len(slice.Endpoints)) // sized once: held as long as the slice
		}
		for i := range slice.Endpoints {
			if ep, ok := convertEndpoint(&slice.Endpoints[i], uint16(*port.Port), family, nodeName); ok {
				eps = append(eps, ep)
			}
		}
		if len(eps) > 0 {
			out[name] = eps
		}
	}
	return out, true
}

func convertEndpoint(e *discovery.Endpoint, port uint16, family proxy.IPFamily, nodeName string) (proxy.Endpoint, bool) {
	if len(e.Addresses) == 0 {
		return proxy.Endpoint{}, false
	}
	ip, err := netip.ParseAddr(e.Addresses[0])
	if err != nil || proxy.FamilyOf(ip) != family {
		return proxy.Endpoint{}, false
	}
	ep := proxy.Endpoint{IP: ip.Unmap(), Port: port}
	ep.Ready = e.Conditions.Ready == nil || *e.Conditions.Ready
	ep.Serving = e.Conditions.Serving == nil || *e.Conditions.Serving
	ep.Terminating = e.Conditions.Terminating != nil && *e.Conditions.Terminating
	if e.NodeName != nil {
		// Interned: a cluster has few node names and many endpoints.
		ep.NodeName = unique.Make(*e.NodeName).Value()
		ep.IsLocal = ep.NodeName == nodeName
	}
	if e.Hints != nil && len(e.Hints.ForZones)+len(e.Hints.ForNodes) > 0 {
		ep.Hints = &proxy.EndpointHints{}
		for _, z := range e.Hints.ForZones {
			ep.Hints.Zones = append(ep.Hints.Zones, z.Name)
		}
		for _, n := range e.Hints.ForNodes {
			ep.Hints.Nodes = append(ep.Hints.Nodes, n.Name)
		}
	}
	return ep, true
}

// convertNode keeps the node's name, labels, deletion state and addresses
// of the family (InternalIP first).
func convertNode(n *v1.Node, family proxy.IPFamily) proxy.Node {
	out := proxy.Node{Name: n.Name, Labels: map[string]string{}, Deleting: n.DeletionTimestamp != nil}
	for k, v := range n.Labels {
		out.Labels[k] = v
	}
	for _, t := range n.Spec.Taints {
		out.ToBeDeleted = out.ToBeDeleted || t.Key == proxy.TaintToBeDeleted
	}
	for _, t := range []v1.NodeAddressType{v1.NodeInternalIP, v1.NodeExternalIP} {
		for _, a := range n.Status.Addresses {
			if a.Type == t {
				out.IPs = append(out.IPs, addrsOfFamily([]string{a.Address}, family)...)
			}
		}
	}
	return out
}
