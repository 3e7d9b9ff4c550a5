package inflight

import (
	"testing"

	"k8s.io/apiserver/pkg/authentication/user"
	apirequest "k8s.io/apiserver/pkg/endpoints/request"
)

func TestIsNodeHigh(t *testing.T) {
	node := &user.DefaultInfo{Name: "system:node:n1", Groups: []string{user.NodesGroup, user.AllAuthenticated}}
	sim := &user.DefaultInfo{Name: "svcplane:node-simulator", Groups: []string{"svcplane:node-simulators"}}
	admin := &user.DefaultInfo{Name: "admin", Groups: []string{user.SystemPrivilegedGroup}}
	masterNode := &user.DefaultInfo{Name: "x", Groups: []string{user.NodesGroup, user.SystemPrivilegedGroup}}
	alice := &user.DefaultInfo{Name: "alice", Groups: []string{user.AllAuthenticated}}
	lease := &apirequest.RequestInfo{IsResourceRequest: true, Verb: "update", APIGroup: "coordination.k8s.io", Resource: "leases", Namespace: "kube-node-lease", Name: "n1"}
	for _, tc := range []struct {
		name string
		u    user.Info
		ri   *apirequest.RequestInfo
		want bool
	}{
		{"node renews its Lease", node, lease, true},
		{"simulator renews a Lease", sim, lease, true},
		{"node Lease in another namespace (upstream: every namespace)", node, &apirequest.RequestInfo{IsResourceRequest: true, Verb: "create", APIGroup: "coordination.k8s.io", Resource: "leases", Namespace: "default"}, true},
		{"node status patch", node, &apirequest.RequestInfo{IsResourceRequest: true, Verb: "patch", Resource: "nodes", Subresource: "status", Name: "n1"}, true},
		{"node get", node, &apirequest.RequestInfo{IsResourceRequest: true, Verb: "get", Resource: "nodes", Name: "n1"}, true},
		{"node create", sim, &apirequest.RequestInfo{IsResourceRequest: true, Verb: "create", Resource: "nodes"}, true},
		{"node writes pod status", node, &apirequest.RequestInfo{IsResourceRequest: true, Verb: "update", Resource: "pods", Subresource: "status", Namespace: "ns"}, false},
		{"node proxy subresource", node, &apirequest.RequestInfo{IsResourceRequest: true, Verb: "get", Resource: "nodes", Subresource: "proxy"}, false},
		{"leases of another group", node, &apirequest.RequestInfo{IsResourceRequest: true, Verb: "update", APIGroup: "example.com", Resource: "leases"}, false},
		{"admin renews a Lease", admin, lease, false},
		{"system:masters node", masterNode, lease, false},
		{"other user", alice, lease, false},
		{"non-resource request", node, &apirequest.RequestInfo{IsResourceRequest: false, Verb: "get", Path: "/healthz"}, false},
		{"no user", nil, lease, false},
		{"no request info", node, nil, false},
	} {
		c := Config{NodeGroups: []string{"svcplane:node-simulators"}}
		if got := c.IsNodeHigh(tc.u, tc.ri); got != tc.want {
			t.Errorf("%s: IsNodeHigh = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestNodeHighSeats(t *testing.T) {
	for _, tc := range []struct{ reads, mutating, want int }{
		{400, 200, 98}, // kube-apiserver's defaults: ⌈600·40/245⌉
		{0, 0, 0},
		{1, 0, 1},
		{245, 0, 40},
	} {
		if got := NodeHighSeats(tc.reads, tc.mutating); got != tc.want {
			t.Errorf("NodeHighSeats(%d, %d) = %d, want %d", tc.reads, tc.mutating, got, tc.want)
		}
	}
}
