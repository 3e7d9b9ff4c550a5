package drift

import (
	"context"
	"fmt"
	"math/rand"
	"reflect"
	"sort"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	rbaclisters "k8s.io/client-go/listers/rbac/v1"
	"k8s.io/client-go/tools/cache"
	rbacregistryvalidation "k8s.io/kubernetes/pkg/registry/rbac/validation"
	upstreamrbac "k8s.io/kubernetes/plugin/pkg/auth/authorizer/rbac"

	"github.com/svcplane/svcplane/internal/auth/rbac"
)

// The vocabulary the random policies and requests draw from: small, so
// that rules and requests meet often.
var (
	rbacVerbs     = []string{"get", "list", "create", "delete", "bind", "escalate", "*"}
	rbacGroups    = []string{"", "apps", "rbac.authorization.k8s.io", "*"}
	rbacResources = []string{"pods", "pods/log", "deployments", "deployments/scale", "*/scale", "roles", "*"}
	rbacNames     = []string{"a", "b"}
	rbacURLs      = []string{"/healthz", "/healthz/*", "/api", "/api/*", "*"}
	rbacUsers     = []string{"alice", "bob", "system:serviceaccount:ns1:sa", "system:serviceaccount:ns2:sa"}
	rbacUserGroup = []string{"devs", "ops", "system:serviceaccounts"}
	rbacNS        = []string{"ns1", "ns2"}
	rbacRoles     = []string{"r1", "r2", "r3", "gone"}
)

func pick(r *rand.Rand, from []string, max int) []string {
	n := r.Intn(max) + 1
	out := make([]string, 0, n)
	for i := 0; i < n; i++ {
		out = append(out, from[r.Intn(len(from))])
	}
	return out
}

func randomRule(r *rand.Rand) rbacv1.PolicyRule {
	if r.Intn(5) == 0 {
		return rbacv1.PolicyRule{Verbs: pick(r, rbacVerbs, 2), NonResourceURLs: pick(r, rbacURLs, 2)}
	}
	rule := rbacv1.PolicyRule{Verbs: pick(r, rbacVerbs, 3), APIGroups: pick(r, rbacGroups, 2), Resources: pick(r, rbacResources, 2)}
	if r.Intn(4) == 0 {
		rule.ResourceNames = pick(r, rbacNames, 1)
	}
	return rule
}

func randomSubjects(r *rand.Rand) []rbacv1.Subject {
	var out []rbacv1.Subject
	for i := r.Intn(3); i >= 0; i-- {
		switch r.Intn(3) {
		case 0:
			out = append(out, rbacv1.Subject{Kind: "User", APIGroup: rbacv1.GroupName, Name: rbacUsers[r.Intn(len(rbacUsers))]})
		case 1:
			out = append(out, rbacv1.Subject{Kind: "Group", APIGroup: rbacv1.GroupName, Name: rbacUserGroup[r.Intn(len(rbacUserGroup))]})
		default:
			s := rbacv1.Subject{Kind: "ServiceAccount", Name: "sa"}
			if r.Intn(2) == 0 {
				s.Namespace = rbacNS[r.Intn(len(rbacNS))]
			}
			out = append(out, s)
		}
	}
	return out
}

// randomPolicy fills four indexers with roles and bindings (some bindings
// point at roles that do not exist).
func randomPolicy(r *rand.Rand) (roles, croles, rbs, crbs cache.Indexer) {
	idx := func() cache.Indexer {
		return cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	}
	roles, croles, rbs, crbs = idx(), idx(), idx(), idx()
	rules := func() []rbacv1.PolicyRule {
		var out []rbacv1.PolicyRule
		for i := r.Intn(3); i >= 0; i-- {
			out = append(out, randomRule(r))
		}
		return out
	}
	for _, name := range rbacRoles[:3] {
		_ = croles.Add(&rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: name}, Rules: rules()})
		for _, ns := range rbacNS {
			_ = roles.Add(&rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Rules: rules()})
		}
	}
	for i := 0; i < 3; i++ {
		_ = crbs.Add(&rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("crb%d", i)}, Subjects: randomSubjects(r),
			RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: rbacRoles[r.Intn(len(rbacRoles))]}})
		for _, ns := range rbacNS {
			kind := []string{"Role", "ClusterRole"}[r.Intn(2)]
			_ = rbs.Add(&rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("rb%d", i)}, Subjects: randomSubjects(r),
				RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: kind, Name: rbacRoles[r.Intn(len(rbacRoles))]}})
		}
	}
	return
}

func randomUser(r *rand.Rand) user.Info {
	return &user.DefaultInfo{Name: rbacUsers[r.Intn(len(rbacUsers))], Groups: pick(r, rbacUserGroup, 2)}
}

func randomAttributes(r *rand.Rand, u user.Info) authorizer.AttributesRecord {
	a := authorizer.AttributesRecord{User: u, Verb: rbacVerbs[r.Intn(len(rbacVerbs)-1)]}
	if r.Intn(5) == 0 {
		a.Path = []string{"/healthz", "/healthz/etcd", "/api", "/api/v1", "/apis", "/version"}[r.Intn(6)]
		return a
	}
	a.ResourceRequest = true
	a.APIGroup = rbacGroups[r.Intn(len(rbacGroups)-1)]
	a.Resource = []string{"pods", "deployments", "roles", "secrets"}[r.Intn(4)]
	if r.Intn(3) == 0 {
		a.Subresource = []string{"log", "scale", "status"}[r.Intn(3)]
	}
	if r.Intn(2) == 0 {
		a.Name = rbacNames[r.Intn(len(rbacNames))]
	}
	if r.Intn(4) != 0 {
		a.Namespace = rbacNS[r.Intn(len(rbacNS))]
	}
	return a
}

// sortedRBAC is our Source with bindings in name order, and upstream's
// four getter/lister interfaces over it.
type sortedRBAC struct{ rbac.Source }

func (s sortedRBAC) RoleBindings(ns string) ([]*rbacv1.RoleBinding, error) {
	l, err := s.Source.RoleBindings(ns)
	sort.Slice(l, func(i, j int) bool { return l[i].Name < l[j].Name })
	return l, err
}

func (s sortedRBAC) ClusterRoleBindings() ([]*rbacv1.ClusterRoleBinding, error) {
	l, err := s.Source.ClusterRoleBindings()
	sort.Slice(l, func(i, j int) bool { return l[i].Name < l[j].Name })
	return l, err
}

func (s sortedRBAC) GetRole(_ context.Context, ns, name string) (*rbacv1.Role, error) {
	return s.Role(ns, name)
}

func (s sortedRBAC) GetClusterRole(_ context.Context, name string) (*rbacv1.ClusterRole, error) {
	return s.ClusterRole(name)
}

func (s sortedRBAC) ListRoleBindings(_ context.Context, ns string) ([]*rbacv1.RoleBinding, error) {
	return s.RoleBindings(ns)
}

func (s sortedRBAC) ListClusterRoleBindings(context.Context) ([]*rbacv1.ClusterRoleBinding, error) {
	return s.ClusterRoleBindings()
}

// TestRBACAuthorizerMatchesUpstream runs random policies and requests
// through svcplane's RBAC authorizer and upstream's (the same listers):
// decisions and reasons, the rule lists of SelfSubjectRulesReview, and the
// escalation check's verdict and message must be the same.
func TestRBACAuthorizerMatchesUpstream(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	allowed, total, refused := 0, 0, 0
	for p := 0; p < 200; p++ {
		roles, croles, rbs, crbs := randomPolicy(r)
		// Both read the same listers; bindings are listed in name order so
		// that "the first binding that allows" is the same one.
		src := sortedRBAC{rbac.FromListers(rbaclisters.NewRoleLister(roles), rbaclisters.NewClusterRoleLister(croles), rbaclisters.NewRoleBindingLister(rbs), rbaclisters.NewClusterRoleBindingLister(crbs))}
		ours := rbac.New(src)
		theirs := upstreamrbac.New(src, src, src, src)
		resolver := rbacregistryvalidation.NewDefaultRuleResolver(src, src, src, src)
		for q := 0; q < 50; q++ {
			u := randomUser(r)
			a := randomAttributes(r, u)
			d1, r1, e1 := ours.Authorize(context.Background(), a)
			d2, r2, e2 := theirs.Authorize(context.Background(), a)
			total++
			if d1 == authorizer.DecisionAllow {
				allowed++
			}
			if d1 != d2 || r1 != r2 || (e1 == nil) != (e2 == nil) {
				t.Errorf("policy %d, %+v:\n ours     %v %q %v\n upstream %v %q %v", p, a, d1, r1, e1, d2, r2, e2)
			}
		}
		for _, ns := range append([]string{""}, rbacNS...) {
			u := randomUser(r)
			res1, non1, inc1, err1 := ours.RulesFor(context.Background(), u, ns)
			res2, non2, inc2, err2 := theirs.RulesFor(context.Background(), u, ns)
			if !reflect.DeepEqual(res1, res2) || !reflect.DeepEqual(non1, non2) || inc1 != inc2 || fmt.Sprint(err1) != fmt.Sprint(err2) {
				t.Errorf("policy %d RulesFor(%v, %q) differ:\n ours     %v %v %v %v\n upstream %v %v %v %v", p, u, ns, res1, non1, inc1, err1, res2, non2, inc2, err2)
			}
			ctx := genericapirequest.WithNamespace(genericapirequest.WithUser(context.Background(), u), ns)
			wanted := []rbacv1.PolicyRule{randomRule(r), randomRule(r)}
			err1 = rbac.ConfirmNoEscalation(ctx, ours.Resolver, wanted)
			err2 = rbacregistryvalidation.ConfirmNoEscalation(ctx, resolver, wanted)
			if err1 != nil {
				refused++
			}
			if fmt.Sprint(err1) != fmt.Sprint(err2) {
				t.Errorf("policy %d ConfirmNoEscalation(%v, %q, %v):\n ours     %v\n upstream %v", p, u, ns, wanted, err1, err2)
			}
		}
	}
	t.Logf("%d requests, %d allowed; %d of 600 escalation checks refused", total, allowed, refused)
	if refused == 0 || refused == 600 {
		t.Errorf("the escalation checks all ended alike")
	}
	if allowed == 0 || allowed == total {
		t.Errorf("the random requests are all decided alike (%d of %d allowed): the comparison proves little", allowed, total)
	}
}
