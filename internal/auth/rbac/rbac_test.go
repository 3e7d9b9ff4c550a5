package rbac

import (
	"context"
	"strings"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	rbaclisters "k8s.io/client-go/listers/rbac/v1"
	"k8s.io/client-go/tools/cache"
)

// fixture is a Source over real client-go listers filled with objects.
func fixture(t *testing.T, objs ...interface{}) Source {
	t.Helper()
	idx := func() cache.Indexer {
		return cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	}
	roles, croles, rbs, crbs := idx(), idx(), idx(), idx()
	for _, o := range objs {
		var err error
		switch o.(type) {
		case *rbacv1.Role:
			err = roles.Add(o)
		case *rbacv1.ClusterRole:
			err = croles.Add(o)
		case *rbacv1.RoleBinding:
			err = rbs.Add(o)
		case *rbacv1.ClusterRoleBinding:
			err = crbs.Add(o)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	return FromListers(rbaclisters.NewRoleLister(roles), rbaclisters.NewClusterRoleLister(croles), rbaclisters.NewRoleBindingLister(rbs), rbaclisters.NewClusterRoleBindingLister(crbs))
}

func clusterRole(name string, rules ...rbacv1.PolicyRule) *rbacv1.ClusterRole {
	return &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: name}, Rules: rules}
}

func role(ns, name string, rules ...rbacv1.PolicyRule) *rbacv1.Role {
	return &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Rules: rules}
}

func crb(name, roleName string, subjects ...rbacv1.Subject) *rbacv1.ClusterRoleBinding {
	return &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: name}, Subjects: subjects,
		RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: roleName}}
}

func rb(ns, name, kind, roleName string, subjects ...rbacv1.Subject) *rbacv1.RoleBinding {
	return &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Subjects: subjects,
		RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: kind, Name: roleName}}
}

func rule(verbs, groups, resources []string, names ...string) rbacv1.PolicyRule {
	return rbacv1.PolicyRule{Verbs: verbs, APIGroups: groups, Resources: resources, ResourceNames: names}
}

func l(s ...string) []string { return s }

var (
	alice = &user.DefaultInfo{Name: "alice", Groups: []string{"devs", user.AllAuthenticated}}
	sa    = &user.DefaultInfo{Name: "system:serviceaccount:team:builder", Groups: []string{"system:serviceaccounts", "system:serviceaccounts:team", user.AllAuthenticated}}
	bob   = &user.DefaultInfo{Name: "bob", Groups: []string{user.AllAuthenticated}}
)

func TestAuthorize(t *testing.T) {
	src := fixture(t,
		clusterRole("view", rule(l("get", "list", "watch"), l(""), l("pods", "services"))),
		clusterRole("scaler", rule(l("update"), l("apps"), l("*/scale"))),
		clusterRole("health", rbacv1.PolicyRule{Verbs: l("get"), NonResourceURLs: l("/healthz", "/logs/*")}),
		clusterRole("one-cm", rule(l("get"), l(""), l("configmaps"), "settings")),
		role("team", "deployer", rule(l("*"), l("apps"), l("deployments"))),
		crb("devs-view", "view", rbacv1.Subject{Kind: "Group", Name: "devs"}),
		crb("all-health", "health", rbacv1.Subject{Kind: "Group", Name: user.AllAuthenticated}),
		crb("dangling", "missing", rbacv1.Subject{Kind: "User", Name: "bob"}),
		rb("team", "builder-deploys", "Role", "deployer", rbacv1.Subject{Kind: "ServiceAccount", Name: "builder"}),
		rb("team", "builder-scales", "ClusterRole", "scaler", rbacv1.Subject{Kind: "ServiceAccount", Name: "builder", Namespace: "team"}),
		rb("team", "alice-cm", "ClusterRole", "one-cm", rbacv1.Subject{Kind: "User", Name: "alice"}),
	)
	a := New(src)
	res := func(u user.Info, verb, group, resource, sub, ns, name string) authorizer.AttributesRecord {
		return authorizer.AttributesRecord{User: u, Verb: verb, APIGroup: group, Resource: resource, Subresource: sub, Namespace: ns, Name: name, ResourceRequest: true}
	}
	url := func(u user.Info, verb, path string) authorizer.AttributesRecord {
		return authorizer.AttributesRecord{User: u, Verb: verb, Path: path}
	}
	for _, tc := range []struct {
		attrs  authorizer.AttributesRecord
		allow  bool
		reason string
	}{
		{res(alice, "list", "", "pods", "", "any", ""), true, `RBAC: allowed by ClusterRoleBinding "devs-view" of ClusterRole "view" to Group "devs"`},
		{res(alice, "delete", "", "pods", "", "any", ""), false, ""},
		{res(alice, "get", "", "pods", "log", "any", "p"), false, ""},
		{res(alice, "get", "", "configmaps", "", "team", "settings"), true, `RBAC: allowed by RoleBinding "alice-cm/team" of ClusterRole "one-cm" to User "alice"`},
		{res(alice, "get", "", "configmaps", "", "team", "other"), false, ""},
		{res(alice, "get", "", "configmaps", "", "elsewhere", "settings"), false, ""},
		{res(sa, "create", "apps", "deployments", "", "team", ""), true, `RBAC: allowed by RoleBinding "builder-deploys/team" of Role "deployer" to ServiceAccount "builder/team"`},
		{res(sa, "create", "apps", "deployments", "", "other", ""), false, ""},
		{res(sa, "update", "apps", "replicasets", "scale", "team", "x"), true, `RBAC: allowed by RoleBinding "builder-scales/team" of ClusterRole "scaler" to ServiceAccount "builder/team"`},
		{res(sa, "update", "apps", "replicasets", "", "team", "x"), false, ""},
		{url(bob, "get", "/healthz"), true, `RBAC: allowed by ClusterRoleBinding "all-health" of ClusterRole "health" to Group "system:authenticated"`},
		{url(bob, "get", "/logs/kube.log"), true, `RBAC: allowed by ClusterRoleBinding "all-health" of ClusterRole "health" to Group "system:authenticated"`},
		{url(bob, "get", "/healthz/etcd"), false, `RBAC: clusterrole.rbac.authorization.k8s.io "missing" not found`},
		{url(bob, "post", "/healthz"), false, `RBAC: clusterrole.rbac.authorization.k8s.io "missing" not found`},
	} {
		d, reason, err := a.Authorize(context.Background(), tc.attrs)
		if err != nil {
			t.Errorf("%+v: %v", tc.attrs, err)
		}
		if (d == authorizer.DecisionAllow) != tc.allow || reason != tc.reason {
			t.Errorf("%s %s %s/%s ns=%q %s: got %v %q, want allow=%v %q", tc.attrs.User.GetName(), tc.attrs.Verb, tc.attrs.Resource, tc.attrs.Subresource, tc.attrs.Namespace, tc.attrs.Path, d, reason, tc.allow, tc.reason)
		}
	}
	rules, nonRes, incomplete, err := a.RulesFor(context.Background(), alice, "team")
	if err != nil || incomplete || len(rules) != 2 || len(nonRes) != 1 {
		t.Errorf("RulesFor(alice, team) = %d resource, %d non-resource rules, %v, %v", len(rules), len(nonRes), incomplete, err)
	}
}

func TestEscalation(t *testing.T) {
	src := fixture(t,
		clusterRole("edit", rule(l("get", "list", "create", "update", "delete"), l(""), l("pods", "configmaps"))),
		clusterRole("cluster-admin", rule(l("*"), l("*"), l("*")), rbacv1.PolicyRule{Verbs: l("*"), NonResourceURLs: l("*")}),
		clusterRole("binder", rule(l("bind"), l(rbacv1.GroupName), l("clusterroles"), "cluster-admin")),
		clusterRole("escalator", rule(l("escalate"), l(rbacv1.GroupName), l("roles"))),
		rb("team", "alice-edit", "ClusterRole", "edit", rbacv1.Subject{Kind: "User", Name: "alice"}),
		rb("team", "bob-edit", "ClusterRole", "edit", rbacv1.Subject{Kind: "User", Name: "bob"}),
		rb("team", "bob-bind", "ClusterRole", "binder", rbacv1.Subject{Kind: "User", Name: "bob"}),
		rb("team", "bob-escalate", "ClusterRole", "escalator", rbacv1.Subject{Kind: "User", Name: "bob"}),
		crb("admins", "cluster-admin", rbacv1.Subject{Kind: "User", Name: "root"}),
	)
	a := New(src)
	e := &Escalation{Authorizer: a, Resolver: a.Resolver}
	ctxFor := func(u user.Info, resource, ns string) context.Context {
		ctx := genericapirequest.WithNamespace(genericapirequest.WithUser(context.Background(), u), ns)
		return genericapirequest.WithRequestInfo(ctx, &genericapirequest.RequestInfo{IsResourceRequest: true, APIGroup: rbacv1.GroupName, Resource: resource, Namespace: ns})
	}
	root := &user.DefaultInfo{Name: "root", Groups: []string{user.AllAuthenticated}}
	masters := &user.DefaultInfo{Name: "m", Groups: []string{user.SystemPrivilegedGroup}}

	// alice holds edit in team: a role within it is fine, one beyond is not.
	if err := e.Check(ctxFor(alice, "roles", "team"), role("team", "r", rule(l("get", "create"), l(""), l("pods"))), nil); err != nil {
		t.Errorf("role within alice's rights: %v", err)
	}
	err := e.Check(ctxFor(alice, "roles", "team"), role("team", "r", rule(l("get", "patch"), l(""), l("pods", "secrets"))), nil)
	want := `roles.rbac.authorization.k8s.io "r" is forbidden: user "alice" (groups=["devs" "system:authenticated"]) is attempting to grant RBAC permissions not currently held:
{APIGroups:[""], Resources:["pods"], Verbs:["patch"]}
{APIGroups:[""], Resources:["secrets"], Verbs:["get" "patch"]}`
	if !apierrors.IsForbidden(err) || err.Error() != want {
		t.Errorf("escalating role: got %v\nwant %s", err, want)
	}
	// Binding cluster-admin: refused to alice, allowed with bind on it, to
	// its holders and to system:masters.
	binding := rb("team", "grab", "ClusterRole", "cluster-admin", rbacv1.Subject{Kind: "User", Name: "alice"})
	if err := e.Check(ctxFor(alice, "rolebindings", "team"), binding, nil); !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), `rolebindings.rbac.authorization.k8s.io "grab" is forbidden: user "alice"`) {
		t.Errorf("alice binding cluster-admin: %v", err)
	}
	for _, u := range []user.Info{bob, root, masters} {
		if err := e.Check(ctxFor(u, "rolebindings", "team"), binding, nil); err != nil {
			t.Errorf("%s binding cluster-admin: %v", u.GetName(), err)
		}
	}
	// A binding to a role that does not exist is its NotFound.
	if err := e.Check(ctxFor(alice, "rolebindings", "team"), rb("team", "x", "Role", "nope"), nil); !apierrors.IsNotFound(err) {
		t.Errorf("binding a missing role: %v", err)
	}
	// escalate on roles lets bob write any role in team.
	if err := e.Check(ctxFor(bob, "roles", "team"), role("team", "r", rule(l("*"), l("*"), l("*"))), nil); err != nil {
		t.Errorf("bob with escalate: %v", err)
	}
	// An aggregationRule needs full authority.
	agg := clusterRole("agg")
	agg.AggregationRule = &rbacv1.AggregationRule{ClusterRoleSelectors: []metav1.LabelSelector{{MatchLabels: map[string]string{"a": "b"}}}}
	if err := e.Check(ctxFor(alice, "clusterroles", ""), agg, nil); err == nil || !strings.Contains(err.Error(), "must have cluster-admin privileges to use the aggregationRule") {
		t.Errorf("alice aggregating: %v", err)
	}
	if err := e.Check(ctxFor(root, "clusterroles", ""), agg, nil); err != nil {
		t.Errorf("root aggregating: %v", err)
	}
	// Only a finalizer changes: no check, even for a role alice could not write.
	big := role("team", "big", rule(l("*"), l("*"), l("*")))
	withFinalizer := big.DeepCopy()
	withFinalizer.Finalizers = []string{"x"}
	if err := e.Check(ctxFor(alice, "roles", "team"), withFinalizer, big); err != nil {
		t.Errorf("finalizer-only update: %v", err)
	}
}

// TestCached: a cached decision holds until Invalidate; the cache tells
// users, groups and requests apart.
func TestCached(t *testing.T) {
	counting := &countingSource{Source: fixture(t,
		clusterRole("view", rule(l("get"), l(""), l("pods"))),
		crb("devs-view", "view", rbacv1.Subject{Kind: "Group", Name: "devs"}))}
	c := NewCached(New(counting), 100)
	ask := func(u user.Info, verb string) authorizer.Decision {
		d, _, _ := c.Authorize(context.Background(), authorizer.AttributesRecord{User: u, Verb: verb, Resource: "pods", Namespace: "ns", ResourceRequest: true})
		return d
	}
	if ask(alice, "get") != authorizer.DecisionAllow || ask(alice, "get") != authorizer.DecisionAllow {
		t.Fatal("alice (devs) may not get pods")
	}
	if counting.lists != 1 {
		t.Errorf("two equal questions read the bindings %d times, want 1", counting.lists)
	}
	if ask(bob, "get") == authorizer.DecisionAllow || ask(alice, "delete") == authorizer.DecisionAllow {
		t.Error("the cache mixed users or verbs up")
	}
	lists := counting.lists
	c.Invalidate()
	ask(alice, "get")
	if counting.lists != lists+1 {
		t.Errorf("after Invalidate the decision came from the cache")
	}
}

// countingSource counts the ClusterRoleBinding lists.
type countingSource struct {
	Source
	lists int
}

func (c *countingSource) ClusterRoleBindings() ([]*rbacv1.ClusterRoleBinding, error) {
	c.lists++
	return c.Source.ClusterRoleBindings()
}
