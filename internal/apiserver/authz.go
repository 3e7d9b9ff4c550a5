package apiserver

import (
	"context"
	"strings"

	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
)

// Groups the bootstrap authorizer knows, as in upstream's default RBAC.
const (
	GroupMasters     = user.SystemPrivilegedGroup // system:masters
	GroupNodes       = user.NodesGroup            // system:nodes
	GroupNodeProxier = "system:node-proxier"
	// UserKubeProxy is kube-proxy's user, bound to system:node-proxier
	// by upstream's bootstrap policy.
	UserKubeProxy      = "system:kube-proxy"
	groupAuthenticated = user.AllAuthenticated
	// UserCoreDNS is the cluster DNS's identity, kubeadm's CoreDNS
	// ServiceAccount (kube-system/coredns), bound to system:coredns.
	UserCoreDNS = "system:serviceaccount:kube-system:coredns"
)

// rule allows verbs on resources ("resource" or "resource/subresource") of
// one API group.
type rule struct {
	group     string
	resources []string
	verbs     []string
}

var readVerbs = []string{"get", "list", "watch"}

// nodeRules approximate upstream's system:node cluster role.
var nodeRules = []rule{
	{"", []string{"nodes", "pods", "services", "endpoints", "namespaces", "configmaps", "secrets",
		"persistentvolumeclaims", "persistentvolumes", "serviceaccounts"}, readVerbs},
	{"", []string{"nodes", "nodes/status"}, []string{"create", "update", "patch", "delete"}},
	{"", []string{"pods"}, []string{"create", "delete"}},
	{"", []string{"pods/status"}, []string{"update", "patch"}},
	{"", []string{"pods/eviction"}, []string{"create"}},
	{"", []string{"events"}, []string{"create", "update", "patch"}},
	{"", []string{"serviceaccounts/token"}, []string{"create"}},
	{"events.k8s.io", []string{"events"}, []string{"create", "update", "patch"}},
	{"coordination.k8s.io", []string{"leases"}, []string{"get", "list", "watch", "create", "update", "patch", "delete"}},
	{"discovery.k8s.io", []string{"endpointslices"}, readVerbs},
}

// proxierRules are upstream's system:node-proxier cluster role.
var proxierRules = []rule{
	{"", []string{"endpoints", "services"}, []string{"list", "watch"}},
	{"", []string{"nodes"}, readVerbs},
	{"", []string{"events"}, []string{"create", "patch", "update"}},
	{"events.k8s.io", []string{"events"}, []string{"create", "patch", "update"}},
	{"discovery.k8s.io", []string{"endpointslices"}, []string{"list", "watch"}},
	{"networking.k8s.io", []string{"servicecidrs"}, []string{"list", "watch"}},
}

// coreDNSRules are kubeadm's system:coredns cluster role.
var coreDNSRules = []rule{
	{"", []string{"endpoints", "services", "pods", "namespaces"}, []string{"list", "watch"}},
	{"discovery.k8s.io", []string{"endpointslices"}, []string{"list", "watch"}},
}

// publicPaths are readable by every authenticated user (upstream's
// system:discovery, system:basic-user and system:public-info-viewer).
var publicPaths = []string{"/healthz", "/livez", "/readyz", "/version", "/api", "/apis", "/openapi"}

// publicInfoPaths are readable by everyone, anonymous included (upstream's
// system:public-info-viewer, bound to system:unauthenticated too): these
// exact paths, not the checks below them.
var publicInfoPaths = []string{"/healthz", "/livez", "/readyz", "/version", "/version/"}

// bootstrapAuthorizer is the authorizer until RBAC lands: system:masters
// may do everything, system:nodes and system:node-proxier what upstream's
// node and node-proxier roles allow, everyone else only discovery.
type bootstrapAuthorizer struct{}

func (bootstrapAuthorizer) Authorize(ctx context.Context, a authorizer.Attributes) (authorizer.Decision, string, error) {
	u := a.GetUser()
	if u == nil {
		return authorizer.DecisionNoOpinion, "no user", nil
	}
	groups := u.GetGroups()
	if has(groups, GroupMasters) {
		return authorizer.DecisionAllow, "", nil
	}
	if !a.IsResourceRequest() {
		if a.GetVerb() == "get" && (has(groups, groupAuthenticated) && publicPath(a.GetPath()) || has(publicInfoPaths, a.GetPath())) {
			return authorizer.DecisionAllow, "", nil
		}
		return authorizer.DecisionNoOpinion, "", nil
	}
	if has(groups, GroupNodes) && allowed(nodeRules, a) {
		return authorizer.DecisionAllow, "", nil
	}
	if (has(groups, GroupNodeProxier) || u.GetName() == UserKubeProxy) && allowed(proxierRules, a) {
		return authorizer.DecisionAllow, "", nil
	}
	if u.GetName() == UserCoreDNS && allowed(coreDNSRules, a) {
		return authorizer.DecisionAllow, "", nil
	}
	return authorizer.DecisionNoOpinion, "", nil
}

func allowed(rules []rule, a authorizer.Attributes) bool {
	res := a.GetResource()
	if a.GetSubresource() != "" {
		res += "/" + a.GetSubresource()
	}
	for _, r := range rules {
		if r.group == a.GetAPIGroup() && has(r.resources, res) && has(r.verbs, a.GetVerb()) {
			return true
		}
	}
	return false
}

func publicPath(p string) bool {
	for _, pp := range publicPaths {
		if p == pp || strings.HasPrefix(p, pp+"/") {
			return true
		}
	}
	return false
}

func has(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
