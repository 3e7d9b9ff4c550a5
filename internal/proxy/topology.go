package proxy

import "sort"

// topology modes chosen from hints.
const (
	topologyNone = ""
	topologyNode = "node"
	topologyZone = "zone"
)

// CategorizeEndpoints returns, as kube-proxy does, the endpoints that
// traffic with Cluster policy may use (clusterEndpoints; nil when the port
// uses no cluster endpoints), the endpoints Local policy may use
// (localEndpoints; nil when it uses none), the union of both
// (allReachableEndpoints) and whether any usable endpoint exists anywhere
// in the cluster (hasAnyEndpoints).
//
// Ready endpoints are preferred; when there are none, serving+terminating
// ones are used. Topology hints narrow cluster endpoints only when every
// ready endpoint carries them and one matches this node (node hints) or
// its zone (zone hints). Local policy ignores hints.
//
// The returned slices may share the input's backing array (when every
// endpoint qualifies): like snapshot slices, they must not be modified.
func CategorizeEndpoints(endpoints []Endpoint, svc *ServicePort, node Node) (clusterEndpoints, localEndpoints, allReachableEndpoints []Endpoint, hasAnyEndpoints bool) {
	if svc.UsesClusterEndpoints() {
		zone := node.Zone()
		mode := topologyModeFromHints(endpoints, node.Name, zone)
		clusterEndpoints = filterEndpoints(endpoints, func(ep Endpoint) bool {
			return ep.Ready && availableForTopology(ep, mode, node.Name, zone)
		})
		if len(clusterEndpoints) == 0 {
			clusterEndpoints = filterEndpoints(endpoints, func(ep Endpoint) bool {
				return ep.Serving && ep.Terminating
			})
		}
		hasAnyEndpoints = len(clusterEndpoints) > 0
	}
	if !svc.UsesLocalEndpoints() {
		return clusterEndpoints, nil, clusterEndpoints, hasAnyEndpoints
	}

	var localReady, localServingTerminating bool
	for _, ep := range endpoints {
		switch {
		case ep.Ready:
			hasAnyEndpoints = true
			localReady = localReady || ep.IsLocal
		case ep.Serving && ep.Terminating:
			hasAnyEndpoints = true
			localServingTerminating = localServingTerminating || ep.IsLocal
		}
	}
	switch {
	case localReady:
		localEndpoints = filterEndpoints(endpoints, func(ep Endpoint) bool { return ep.IsLocal && ep.Ready })
	case localServingTerminating:
		localEndpoints = filterEndpoints(endpoints, func(ep Endpoint) bool {
			return ep.IsLocal && ep.Serving && ep.Terminating
		})
	}
	if !svc.UsesClusterEndpoints() {
		return nil, localEndpoints, localEndpoints, hasAnyEndpoints
	}
	return clusterEndpoints, localEndpoints, mergeEndpoints(clusterEndpoints, localEndpoints), hasAnyEndpoints
}

// topologyModeFromHints picks node hints, then zone hints, when every
// ready endpoint has them and at least one names this node or zone.
func topologyModeFromHints(endpoints []Endpoint, nodeName, zone string) string {
	allNode, allZone := true, true
	forNode, forZone := false, false
	for _, ep := range endpoints {
		if !ep.Ready {
			continue
		}
		if len(ep.NodeHints()) == 0 {
			allNode = false
		} else if has(ep.NodeHints(), nodeName) {
			forNode = true
		}
		if len(ep.ZoneHints()) == 0 {
			allZone = false
		} else if has(ep.ZoneHints(), zone) {
			forZone = true
		}
	}
	switch {
	case allNode && forNode:
		return topologyNode
	case allZone && forZone && zone != "":
		return topologyZone
	}
	return topologyNone
}

func availableForTopology(ep Endpoint, mode, nodeName, zone string) bool {
	switch mode {
	case topologyNode:
		return has(ep.NodeHints(), nodeName)
	case topologyZone:
		return has(ep.ZoneHints(), zone)
	}
	return true
}

// filterEndpoints returns the endpoints keep accepts. When it accepts
// all, the input slice itself is returned (capacity clipped): snapshot
// slices are immutable, so sharing saves a copy per port and sync.
func filterEndpoints(endpoints []Endpoint, keep func(Endpoint) bool) []Endpoint {
	n := 0
	for _, ep := range endpoints {
		if keep(ep) {
			n++
		}
	}
	if n == 0 {
		return nil
	}
	if n == len(endpoints) {
		return endpoints[:n:n]
	}
	out := make([]Endpoint, 0, n)
	for _, ep := range endpoints {
		if keep(ep) {
			out = append(out, ep)
		}
	}
	return out
}

// mergeEndpoints returns the union of a and b by identity, sorted.
func mergeEndpoints(a, b []Endpoint) []Endpoint {
	seen := make(map[string]Endpoint, len(a)+len(b))
	for _, ep := range a {
		seen[ep.String()] = ep
	}
	for _, ep := range b {
		seen[ep.String()] = ep
	}
	out := make([]Endpoint, 0, len(seen))
	for _, ep := range seen {
		out = append(out, ep)
	}
	SortEndpoints(out)
	return out
}

// SortEndpoints orders endpoints by address then port.
func SortEndpoints(eps []Endpoint) {
	sort.Slice(eps, func(i, j int) bool {
		if c := eps[i].IP.Compare(eps[j].IP); c != 0 {
			return c < 0
		}
		return eps[i].Port < eps[j].Port
	})
}
