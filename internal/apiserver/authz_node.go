package apiserver

import (
	"context"
	"errors"
	"strings"

	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
)

// nodeRule allows verbs on resources ("resource" or "resource/subresource")
// of one API group.
type nodeRule struct {
	group     string
	resources []string
	verbs     []string
}

var readVerbs = []string{"get", "list", "watch"}

// nodeRules are what the Node mode grants a node (user system:node:<name>
// in group system:nodes): upstream's system:node role, for every node
// alike. Upstream's Node authorizer narrows most of these to the node's own
// objects (its Node, Lease, pods and what they reference); svcplane does
// not yet.
var nodeRules = []nodeRule{
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

// nodeAuthorizer is the Node mode: requests of node identities (group
// system:nodes, user system:node:<name>) are decided by nodeRules; other
// users get no opinion.
type nodeAuthorizer struct{}

func isNode(u user.Info) bool {
	return u != nil && strings.HasPrefix(u.GetName(), "system:node:") && has(u.GetGroups(), GroupNodes)
}

func (nodeAuthorizer) Authorize(_ context.Context, a authorizer.Attributes) (authorizer.Decision, string, error) {
	if !isNode(a.GetUser()) || !a.IsResourceRequest() {
		return authorizer.DecisionNoOpinion, "", nil
	}
	res := a.GetResource()
	if a.GetSubresource() != "" {
		res += "/" + a.GetSubresource()
	}
	for _, r := range nodeRules {
		if r.group == a.GetAPIGroup() && has(r.resources, res) && has(r.verbs, a.GetVerb()) {
			return authorizer.DecisionAllow, "", nil
		}
	}
	return authorizer.DecisionNoOpinion, "", nil
}

// RulesFor: like upstream's Node authorizer, it cannot list a node's
// rules (they depend on the objects), and says so.
func (nodeAuthorizer) RulesFor(_ context.Context, u user.Info, _ string) ([]authorizer.ResourceRuleInfo, []authorizer.NonResourceRuleInfo, bool, error) {
	if isNode(u) {
		return nil, nil, true, errors.New("node authorizer does not support user rule resolution")
	}
	return nil, nil, false, nil
}
