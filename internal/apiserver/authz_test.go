package apiserver

import (
	"context"
	"testing"

	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
)

func TestBootstrapAuthorizer(t *testing.T) {
	u := func(groups ...string) user.Info {
		return &user.DefaultInfo{Name: "u", Groups: append(groups, groupAuthenticated)}
	}
	res := func(who user.Info, verb, group, resource, sub string) authorizer.Attributes {
		return authorizer.AttributesRecord{User: who, Verb: verb, APIGroup: group, Resource: resource,
			Subresource: sub, ResourceRequest: true}
	}
	dns := &user.DefaultInfo{Name: UserCoreDNS, Groups: []string{"system:serviceaccounts", groupAuthenticated}}
	anon := &user.DefaultInfo{Name: user.Anonymous, Groups: []string{user.AllUnauthenticated}}
	cases := []struct {
		name  string
		attrs authorizer.Attributes
		allow bool
	}{
		{"masters delete anything", res(u(GroupMasters), "delete", "apps", "deployments", ""), true},
		{"proxier lists services", res(u(GroupNodeProxier), "list", "", "services", ""), true},
		{"proxier watches endpointslices", res(u(GroupNodeProxier), "watch", "discovery.k8s.io", "endpointslices", ""), true},
		{"proxier cannot create configmaps", res(u(GroupNodeProxier), "create", "", "configmaps", ""), false},
		{"proxier cannot get secrets", res(u(GroupNodeProxier), "get", "", "secrets", ""), false},
		{"node updates pod status", res(u(GroupNodes), "patch", "", "pods", "status"), true},
		{"node renews leases", res(u(GroupNodes), "update", "coordination.k8s.io", "leases", ""), true},
		// Everything the node agent does (internal/node/agent).
		{"node creates nodes", res(u(GroupNodes), "create", "", "nodes", ""), true},
		{"node updates nodes", res(u(GroupNodes), "update", "", "nodes", ""), true},
		{"node updates node status", res(u(GroupNodes), "update", "", "nodes", "status"), true},
		{"node watches nodes", res(u(GroupNodes), "watch", "", "nodes", ""), true},
		{"node creates leases", res(u(GroupNodes), "create", "coordination.k8s.io", "leases", ""), true},
		{"node gets leases", res(u(GroupNodes), "get", "coordination.k8s.io", "leases", ""), true},
		{"node lists pods", res(u(GroupNodes), "list", "", "pods", ""), true},
		{"node watches pods", res(u(GroupNodes), "watch", "", "pods", ""), true},
		{"node updates pod status", res(u(GroupNodes), "update", "", "pods", "status"), true},
		{"node deletes pods", res(u(GroupNodes), "delete", "", "pods", ""), true},
		{"node creates events", res(u(GroupNodes), "create", "", "events", ""), true},
		{"node cannot update pods", res(u(GroupNodes), "update", "", "pods", ""), false},
		{"node cannot delete services", res(u(GroupNodes), "delete", "", "services", ""), false},
		{"coredns watches endpointslices", res(dns, "watch", "discovery.k8s.io", "endpointslices", ""), true},
		{"coredns lists services", res(dns, "list", "", "services", ""), true},
		{"coredns cannot get secrets", res(dns, "get", "", "secrets", ""), false},
		{"coredns cannot update services", res(dns, "update", "", "services", ""), false},
		{"nobody cannot list services", res(u(), "list", "", "services", ""), false},
		{"authenticated reads /version", authorizer.AttributesRecord{User: u(), Verb: "get", Path: "/version"}, true},
		{"authenticated reads /openapi/v3/apis", authorizer.AttributesRecord{User: u(), Verb: "get", Path: "/openapi/v3/apis"}, true},
		{"kube-proxy's user lists services", res(&user.DefaultInfo{Name: UserKubeProxy, Groups: []string{groupAuthenticated}}, "list", "", "services", ""), true},
		{"kube-proxy's user cannot get secrets", res(&user.DefaultInfo{Name: UserKubeProxy, Groups: []string{groupAuthenticated}}, "get", "", "secrets", ""), false},
		{"anonymous reads /healthz", authorizer.AttributesRecord{User: anon, Verb: "get", Path: "/healthz"}, true},
		{"anonymous reads /version", authorizer.AttributesRecord{User: anon, Verb: "get", Path: "/version"}, true},
		{"anonymous cannot read /healthz/etcd", authorizer.AttributesRecord{User: anon, Verb: "get", Path: "/healthz/etcd"}, false},
		{"anonymous cannot discover /api", authorizer.AttributesRecord{User: anon, Verb: "get", Path: "/api"}, false},
		{"anonymous cannot list services", res(anon, "list", "", "services", ""), false},
		{"authenticated cannot read /metrics", authorizer.AttributesRecord{User: u(), Verb: "get", Path: "/metrics"}, false},
	}
	for _, c := range cases {
		d, _, _ := bootstrapAuthorizer{}.Authorize(context.Background(), c.attrs)
		if (d == authorizer.DecisionAllow) != c.allow {
			t.Errorf("%s: decision %v, want allow=%v", c.name, d, c.allow)
		}
	}
}
