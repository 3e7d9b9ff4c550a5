package apiserver

import (
	"context"
	"strings"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/svcplane/svcplane/internal/auth/bootstrappolicy"
)

// bootstrapChain is the default chain (Node,RBAC) over informer stores
// holding upstream's bootstrap policy, as a fresh server has it.
func bootstrapChain(t testing.TB) (*authorizers, informers.SharedInformerFactory) {
	t.Helper()
	f := informers.NewSharedInformerFactory(fake.NewClientset(), 0)
	a, err := newAuthorizers(NewOptions().AuthorizationModes, f)
	if err != nil {
		t.Fatal(err)
	}
	v1 := f.Rbac().V1()
	for _, r := range bootstrappolicy.ClusterRoles() {
		_ = v1.ClusterRoles().Informer().GetStore().Add(&r)
	}
	for _, b := range bootstrappolicy.ClusterRoleBindings() {
		_ = v1.ClusterRoleBindings().Informer().GetStore().Add(&b)
	}
	for _, roles := range bootstrappolicy.NamespaceRoles() {
		for _, r := range roles {
			_ = v1.Roles().Informer().GetStore().Add(&r)
		}
	}
	for _, bindings := range bootstrappolicy.NamespaceRoleBindings() {
		for _, b := range bindings {
			_ = v1.RoleBindings().Informer().GetStore().Add(&b)
		}
	}
	return a, f
}

func TestAuthorizationChain(t *testing.T) {
	a, _ := bootstrapChain(t)
	u := func(name string, groups ...string) user.Info {
		return &user.DefaultInfo{Name: name, Groups: append(groups, user.AllAuthenticated)}
	}
	res := func(who user.Info, verb, group, resource, sub string) authorizer.AttributesRecord {
		return authorizer.AttributesRecord{User: who, Verb: verb, APIGroup: group, Resource: resource,
			Subresource: sub, ResourceRequest: true, Namespace: "default"}
	}
	path := func(who user.Info, p string) authorizer.AttributesRecord {
		return authorizer.AttributesRecord{User: who, Verb: "get", Path: p}
	}
	named := func(a authorizer.AttributesRecord, ns, name string) authorizer.AttributesRecord {
		a.Namespace, a.Name = ns, name
		return a
	}
	node := u("system:node:n1", GroupNodes)
	proxy := u(UserKubeProxy)
	anon := &user.DefaultInfo{Name: user.Anonymous, Groups: []string{user.AllUnauthenticated}}
	nobody := u("nobody")
	cases := []struct {
		name  string
		attrs authorizer.AttributesRecord
		allow bool
	}{
		{"masters delete anything", res(u("admin", GroupMasters), "delete", "apps", "deployments", ""), true},
		{"kube-proxy lists services", res(proxy, "list", "", "services", ""), true},
		{"kube-proxy watches endpointslices", res(proxy, "watch", "discovery.k8s.io", "endpointslices", ""), true},
		{"kube-proxy cannot create configmaps", res(proxy, "create", "", "configmaps", ""), false},
		{"kube-proxy cannot get secrets", res(proxy, "get", "", "secrets", ""), false},
		{"node updates pod status", res(node, "patch", "", "pods", "status"), true},
		{"node creates nodes", res(node, "create", "", "nodes", ""), true},
		{"node updates node status", res(node, "update", "", "nodes", "status"), true},
		{"node creates events", res(node, "create", "", "events", ""), true},
		{"node cannot update pods", res(node, "update", "", "pods", ""), false},
		{"node cannot delete services", res(node, "delete", "", "services", ""), false},
		{"a system:nodes member not named system:node:* is no node", res(u("x", GroupNodes), "patch", "", "pods", "status"), false},
		{"node cannot list nodes", res(node, "list", "", "nodes", ""), false},
		{"node gets its own node", named(res(node, "get", "", "nodes", ""), "", "n1"), true},
		{"node renews its lease", named(res(node, "update", "coordination.k8s.io", "leases", ""), "kube-node-lease", "n1"), true},
		{"node cannot take another node's lease", named(res(node, "update", "coordination.k8s.io", "leases", ""), "kube-node-lease", "n2"), false},
		{"node cannot take the controller manager's lease", named(res(node, "update", "coordination.k8s.io", "leases", ""), "kube-system", "svcplane-controller-manager"), false},
		{"node cannot read unreferenced secrets", named(res(node, "get", "", "secrets", ""), "default", "s"), false},
		{"node cannot delete nodes", named(res(node, "delete", "", "nodes", ""), "", "n1"), false},
		{"nobody cannot list services", res(nobody, "list", "", "services", ""), false},
		{"authenticated reads /version", path(nobody, "/version"), true},
		{"authenticated discovers /apis", path(nobody, "/apis/apps/v1"), true},
		{"authenticated reads /openapi/v3", path(nobody, "/openapi/v3/apis"), true},
		{"authenticated cannot read /metrics", path(nobody, "/metrics"), false},
		{"authenticated may ask selfsubjectaccessreviews", authorizer.AttributesRecord{User: nobody, Verb: "create", APIGroup: "authorization.k8s.io", Resource: "selfsubjectaccessreviews", ResourceRequest: true}, true},
		{"authenticated may ask selfsubjectreviews", authorizer.AttributesRecord{User: nobody, Verb: "create", APIGroup: "authentication.k8s.io", Resource: "selfsubjectreviews", ResourceRequest: true}, true},
		{"anonymous reads /healthz", path(anon, "/healthz"), true},
		{"anonymous reads /version", path(anon, "/version"), true},
		{"anonymous cannot read /healthz/etcd", path(anon, "/healthz/etcd"), false},
		{"anonymous cannot discover /api", path(anon, "/api"), false},
		{"anonymous cannot list services", res(anon, "list", "", "services", ""), false},
		{"the scheduler binds pods", res(u("system:kube-scheduler"), "create", "", "pods", "binding"), true},
		{"the controller manager's user renews its lease", authorizer.AttributesRecord{User: u("system:kube-controller-manager"), Verb: "update",
			APIGroup: "coordination.k8s.io", Resource: "leases", Namespace: "kube-system", Name: "kube-controller-manager", ResourceRequest: true}, true},
		{"the controller manager's user cannot take a lease elsewhere", authorizer.AttributesRecord{User: u("system:kube-controller-manager"), Verb: "update",
			APIGroup: "coordination.k8s.io", Resource: "leases", Namespace: "default", Name: "other", ResourceRequest: true}, false},
	}
	for _, c := range cases {
		d, _, _ := a.authorizer.Authorize(context.Background(), c.attrs)
		if (d == authorizer.DecisionAllow) != c.allow {
			t.Errorf("%s: decision %v, want allow=%v", c.name, d, c.allow)
		}
	}
	// Rules lists: RBAC's for a user, and the Node mode's refusal for a node.
	rules, nonRes, incomplete, err := a.rules.RulesFor(context.Background(), nobody, "default")
	if err != nil || incomplete || len(rules) == 0 || len(nonRes) == 0 {
		t.Errorf("rules of an authenticated user: %d, %d, %v, %v", len(rules), len(nonRes), incomplete, err)
	}
	if _, _, incomplete, err := a.rules.RulesFor(context.Background(), node, "default"); !incomplete || err == nil {
		t.Errorf("rules of a node: incomplete %v, err %v", incomplete, err)
	}
}

func TestAuthorizationModes(t *testing.T) {
	for _, tc := range []struct {
		modes []string
		err   string
	}{
		{[]string{"Node", "RBAC"}, ""},
		{[]string{"AlwaysAllow"}, ""},
		{[]string{"RBAC", "AlwaysDeny"}, ""},
		{nil, "at least one authorization mode must be passed"},
		{[]string{"Webhook"}, `authorization-mode "Webhook" is not a valid mode`},
		{[]string{"RBAC", "RBAC"}, `"RBAC" is specified more than once`},
	} {
		err := validateAuthorizationModes(tc.modes)
		if tc.err == "" && err != nil || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("%v: %v, want %q", tc.modes, err, tc.err)
		}
	}
}

// BenchmarkAuthorizeRBAC: one decision for a user allowed by a
// RoleBinding to edit's rules, over upstream's bootstrap policy (the
// decision `svcplane bench services --as` makes per request): the default
// chain (its RBAC decisions cached) and RBAC resolution alone.
func BenchmarkAuthorizeRBAC(b *testing.B) {
	a, f := bootstrapChain(b)
	// edit's rules come from aggregation: bind the aggregated role itself.
	_ = f.Rbac().V1().RoleBindings().Informer().GetStore().Add(&rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "alice"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "system:aggregate-to-edit"},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: "alice"}}})
	alice := &user.DefaultInfo{Name: "alice", Groups: []string{user.AllAuthenticated}}
	attrs := authorizer.AttributesRecord{User: alice, Verb: "create", Resource: "services", Namespace: "default", ResourceRequest: true}
	ctx := context.Background()
	for _, bc := range []struct {
		name string
		a    authorizer.Authorizer
	}{{"chain-cached", a.authorizer}, {"rbac-uncached", a.rbac}} {
		b.Run(bc.name, func(b *testing.B) {
			if d, _, _ := bc.a.Authorize(ctx, attrs); d != authorizer.DecisionAllow {
				b.Fatalf("alice not allowed: %v", d)
			}
			b.ReportAllocs()
			for b.Loop() {
				bc.a.Authorize(ctx, attrs)
			}
		})
	}
}
