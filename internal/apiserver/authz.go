package apiserver

import (
	"fmt"
	"strings"

	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/apiserver/pkg/authorization/authorizerfactory"
	authzunion "k8s.io/apiserver/pkg/authorization/union"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"

	"github.com/svcplane/svcplane/internal/auth/node"
	"github.com/svcplane/svcplane/internal/auth/rbac"
)

// Groups and users svcplane's credentials use, as in upstream's default
// RBAC policy.
const (
	GroupMasters = user.SystemPrivilegedGroup // system:masters
	GroupNodes   = user.NodesGroup            // system:nodes
	// UserKubeProxy is kube-proxy's user, bound to system:node-proxier
	// by upstream's bootstrap policy.
	UserKubeProxy = "system:kube-proxy"
	// UserCoreDNS is the cluster DNS's identity, kubeadm's CoreDNS
	// ServiceAccount (kube-system/coredns), bound to system:coredns.
	UserCoreDNS = "system:serviceaccount:kube-system:coredns"
	// UserNodeSimulator in GroupNodeSimulators is the node simulator's
	// identity: many nodes on one credential (svcplane node --nodes N),
	// which no node identity can be. internal/plane binds the group to
	// upstream's system:node ClusterRole (the rights every node had
	// before the Node authorizer); it is no node identity, so neither the
	// Node authorizer nor NodeRestriction narrows it to one node.
	UserNodeSimulator   = "svcplane:node-simulator"
	GroupNodeSimulators = "svcplane:node-simulators"
	// UserKubeletClient is the API server's identity towards kubelets
	// (kubeadm's apiserver-kubelet-client certificate, no group);
	// internal/plane binds it to system:kubelet-api-admin as kubeadm's
	// ClusterRoleBinding KubeletClientBinding does.
	UserKubeletClient    = "kube-apiserver-kubelet-client"
	KubeletClientBinding = "kubeadm:apiserver-kubelet-client"
	RoleKubeletAPIAdmin  = "system:kubelet-api-admin"
)

// Authorization modes (kube-apiserver's --authorization-mode values that
// svcplane has).
const (
	ModeAlwaysAllow = "AlwaysAllow"
	ModeAlwaysDeny  = "AlwaysDeny"
	ModeNode        = "Node"
	ModeRBAC        = "RBAC"
)

var authorizationModes = []string{ModeAlwaysAllow, ModeAlwaysDeny, ModeNode, ModeRBAC}

// rbacCacheSize is how many recent RBAC decisions are remembered (until
// any role or binding changes).
const rbacCacheSize = 10000

// validateAuthorizationModes checks --authorization-mode as kube-apiserver
// does: known modes, each once, at least one.
func validateAuthorizationModes(modes []string) error {
	if len(modes) == 0 {
		return fmt.Errorf("--authorization-mode: at least one authorization mode must be passed")
	}
	seen := map[string]bool{}
	for _, m := range modes {
		if !has(authorizationModes, m) {
			return fmt.Errorf("--authorization-mode: authorization-mode %q is not a valid mode (svcplane has %s; Webhook and ABAC are not supported)", m, strings.Join(authorizationModes, ","))
		}
		if seen[m] {
			return fmt.Errorf("--authorization-mode: %q is specified more than once", m)
		}
		seen[m] = true
	}
	return nil
}

// authorizers is the server's authorization chain, in kube-apiserver's
// order: system:masters may do everything, then each mode in turn (the
// first that allows or denies decides); rules lists a user's rules for
// SelfSubjectRulesReview from the modes that can, and rbac is the RBAC
// authorizer when that mode is on (the RBAC API's escalation checks use it).
type authorizers struct {
	authorizer authorizer.Authorizer
	rules      authorizer.RuleResolver
	rbac       *rbac.Authorizer
}

// newAuthorizers builds the chain of modes; RBAC reads roles and bindings
// from f's informers (the server starts them).
func newAuthorizers(modes []string, f informers.SharedInformerFactory) (*authorizers, error) {
	if err := validateAuthorizationModes(modes); err != nil {
		return nil, err
	}
	out := &authorizers{}
	chain := []authorizer.Authorizer{authorizerfactory.NewPrivilegedGroups(GroupMasters)}
	var resolvers []authorizer.RuleResolver
	for _, m := range modes {
		switch m {
		case ModeAlwaysAllow:
			a := authorizerfactory.NewAlwaysAllowAuthorizer()
			chain, resolvers = append(chain, a), append(resolvers, a)
		case ModeAlwaysDeny:
			a := authorizerfactory.NewAlwaysDenyAuthorizer()
			chain, resolvers = append(chain, a), append(resolvers, a)
		case ModeNode:
			a, err := newNodeAuthorizer(f)
			if err != nil {
				return nil, err
			}
			chain, resolvers = append(chain, a), append(resolvers, a)
		case ModeRBAC:
			v1 := f.Rbac().V1()
			out.rbac = rbac.New(rbac.FromListers(v1.Roles().Lister(), v1.ClusterRoles().Lister(), v1.RoleBindings().Lister(), v1.ClusterRoleBindings().Lister()))
			cached := rbac.NewCached(out.rbac, rbacCacheSize)
			invalidate := cache.ResourceEventHandlerFuncs{
				AddFunc:    func(interface{}) { cached.Invalidate() },
				UpdateFunc: func(_, _ interface{}) { cached.Invalidate() },
				DeleteFunc: func(interface{}) { cached.Invalidate() },
			}
			for _, inf := range []cache.SharedIndexInformer{v1.Roles().Informer(), v1.ClusterRoles().Informer(), v1.RoleBindings().Informer(), v1.ClusterRoleBindings().Informer()} {
				if _, err := inf.AddEventHandler(invalidate); err != nil {
					return nil, err
				}
			}
			chain, resolvers = append(chain, cached), append(resolvers, out.rbac)
		}
	}
	out.authorizer, out.rules = authzunion.New(chain...), authzunion.NewRuleResolvers(resolvers...)
	return out, nil
}

// newNodeAuthorizer is the Node mode: upstream's Node authorizer
// (internal/auth/node), its graph fed by f's informer of pod records
// (node.PodRecordInformer), which NodeRestriction and the service account
// token authenticator read too: it keeps of each pod only what the three
// read.
func newNodeAuthorizer(f informers.SharedInformerFactory) (*node.Authorizer, error) {
	g := node.NewGraph()
	if _, err := node.AddGraphEventHandlers(g, node.PodRecordInformer(f)); err != nil {
		return nil, err
	}
	return node.New(g, node.StaticRules()), nil
}

func has(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// escalation is the RBAC API's escalation check: the chain decides
// "escalate" and "bind", and the user's RBAC rules (read from f's
// informers, whether or not RBAC authorizes requests) must cover what is
// granted, as kube-apiserver's RBAC storage always checks.
func (a *authorizers) escalation(f informers.SharedInformerFactory) *rbac.Escalation {
	r := a.rbac
	if r == nil {
		v1 := f.Rbac().V1()
		r = rbac.New(rbac.FromListers(v1.Roles().Lister(), v1.ClusterRoles().Lister(), v1.RoleBindings().Lister(), v1.ClusterRoleBindings().Lister()))
	}
	return &rbac.Escalation{Authorizer: a.authorizer, Resolver: r.Resolver}
}
