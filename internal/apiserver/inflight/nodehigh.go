package inflight

import (
	"slices"

	"k8s.io/apiserver/pkg/authentication/user"
	apirequest "k8s.io/apiserver/pkg/endpoints/request"
)

// Shares of kube-apiserver's suggested priority levels
// (k8s.io/apiserver/pkg/apis/flowcontrol/bootstrap): node-high's and the
// total of all levels' nominal concurrency shares.
const (
	nodeHighShares = 40
	totalShares    = 245 // catch-all 5, system 30, node-high 40, leader-election 10, workload-high 40, workload-low 100, global-default 20
)

// NodeHighSeats is node-high's nominal concurrency limit on a server with
// reads + mutating seats in all, as APF computes it: ⌈seats × 40 / 245⌉
// (98 of kube-apiserver's default 400 + 200).
func NodeHighSeats(reads, mutating int) int {
	total := reads + mutating
	return (total*nodeHighShares + totalShares - 1) / totalShares
}

// IsNodeHigh tells whether a request belongs to upstream's
// "system-node-high" flow: a user in system:nodes (or in one of
// c.NodeGroups) on nodes or nodes/status (any verb) or on leases of
// coordination.k8s.io in any namespace. Members of system:masters never
// are: the plain filter never refuses them.
func (c Config) IsNodeHigh(u user.Info, ri *apirequest.RequestInfo) bool {
	if u == nil || ri == nil || !ri.IsResourceRequest {
		return false
	}
	groups := u.GetGroups()
	if slices.Contains(groups, user.SystemPrivilegedGroup) {
		return false
	}
	if !slices.Contains(groups, user.NodesGroup) && !slices.ContainsFunc(groups, func(g string) bool { return slices.Contains(c.NodeGroups, g) }) {
		return false
	}
	switch ri.APIGroup {
	case "":
		return ri.Resource == "nodes" && (ri.Subresource == "" || ri.Subresource == "status")
	case "coordination.k8s.io":
		return ri.Resource == "leases" && ri.Subresource == ""
	}
	return false
}
