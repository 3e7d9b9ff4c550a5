package iptables

import (
	"maps"
	"slices"

	"github.com/svcplane/svcplane/internal/proxy"
)

// sameServicePort compares everything the planner reads of a port.
func sameServicePort(a, b *proxy.ServicePort) bool {
	if a == b {
		return true
	}
	return a.Name == b.Name && a.Protocol == b.Protocol && a.ClusterIP == b.ClusterIP && a.Port == b.Port &&
		a.NodePort == b.NodePort && slices.Equal(a.ExternalIPs, b.ExternalIPs) &&
		slices.Equal(a.LoadBalancerVIPs, b.LoadBalancerVIPs) &&
		slices.Equal(a.LoadBalancerSourceRanges, b.LoadBalancerSourceRanges) &&
		a.HealthCheckNodePort == b.HealthCheckNodePort && a.InternalPolicyLocal == b.InternalPolicyLocal &&
		a.ExternalPolicyLocal == b.ExternalPolicyLocal && a.StickyMaxAgeSeconds == b.StickyMaxAgeSeconds
}

func sameEndpoints(a, b []proxy.Endpoint) bool {
	return slices.EqualFunc(a, b, func(x, y proxy.Endpoint) bool {
		return x.IP == y.IP && x.Port == y.Port && x.NodeName == y.NodeName && x.IsLocal == y.IsLocal &&
			x.Ready == y.Ready && x.Serving == y.Serving && x.Terminating == y.Terminating &&
			slices.Equal(x.ZoneHints(), y.ZoneHints()) && slices.Equal(x.NodeHints(), y.NodeHints())
	})
}

func sameNode(a, b proxy.Node) bool {
	return a.Name == b.Name && a.Deleting == b.Deleting && slices.Equal(a.IPs, b.IPs) && maps.Equal(a.Labels, b.Labels)
}
