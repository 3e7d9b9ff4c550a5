package clusterroleaggregation

import (
	"context"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	"sigs.k8s.io/yaml"
)

func cr(name string, labels map[string]string, rules ...rbacv1.PolicyRule) *rbacv1.ClusterRole {
	return &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}, Rules: rules}
}

func aggregating(name string, selectors ...map[string]string) *rbacv1.ClusterRole {
	r := cr(name, nil)
	r.AggregationRule = &rbacv1.AggregationRule{}
	for _, s := range selectors {
		r.AggregationRule.ClusterRoleSelectors = append(r.AggregationRule.ClusterRoleSelectors, metav1.LabelSelector{MatchLabels: s})
	}
	return r
}

var (
	getPods  = rbacv1.PolicyRule{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"pods"}}
	listSvcs = rbacv1.PolicyRule{Verbs: []string{"list"}, APIGroups: []string{""}, Resources: []string{"services"}}
	healthz  = rbacv1.PolicyRule{Verbs: []string{"get"}, NonResourceURLs: []string{"/healthz"}}
)

// run syncs name over roles and returns the rules of the apply it sent,
// or nil when it sent none.
func run(t *testing.T, name string, roles ...*rbacv1.ClusterRole) ([]rbacv1.PolicyRule, bool) {
	t.Helper()
	client := fake.NewClientset()
	f := informers.NewSharedInformerFactory(client, 0)
	c := New(client, f.Rbac().V1().ClusterRoles())
	for _, r := range roles {
		_ = f.Rbac().V1().ClusterRoles().Informer().GetStore().Add(r)
	}
	var applied []rbacv1.PolicyRule
	sent := false
	client.PrependReactor("patch", "clusterroles", func(a clienttesting.Action) (bool, runtime.Object, error) {
		p := a.(clienttesting.PatchAction)
		if p.GetPatchType() != "application/apply-patch+yaml" || p.GetName() != name {
			t.Errorf("unexpected patch %s %s", p.GetPatchType(), p.GetName())
		}
		sent = true
		applied = decodeRules(t, p.GetPatch())
		return true, &rbacv1.ClusterRole{}, nil
	})
	if err := c.sync(context.Background(), name); err != nil {
		t.Fatal(err)
	}
	return applied, sent
}

func TestAggregation(t *testing.T) {
	// Rules of matching roles in name order, duplicates once, the
	// unlabelled role and the aggregating role's own left out.
	rules, sent := run(t, "view",
		aggregating("view", map[string]string{"agg-view": "true"}, map[string]string{"agg-all": "true"}),
		cr("b-extra", map[string]string{"agg-view": "true"}, listSvcs, getPods),
		cr("a-pods", map[string]string{"agg-view": "true"}, getPods),
		cr("c-health", map[string]string{"agg-all": "true"}, healthz, getPods),
		cr("unlabelled", nil, rbacv1.PolicyRule{Verbs: []string{"*"}, APIGroups: []string{"*"}, Resources: []string{"*"}}),
	)
	if !sent || len(rules) != 3 || rules[0].Resources[0] != "pods" || rules[1].Resources[0] != "services" || rules[2].NonResourceURLs[0] != "/healthz" {
		t.Errorf("aggregated rules %+v (sent %v)", rules, sent)
	}
	// Already up to date: nothing sent.
	up := aggregating("view", map[string]string{"agg-view": "true"})
	up.Rules = []rbacv1.PolicyRule{getPods}
	if _, sent := run(t, "view", up, cr("a-pods", map[string]string{"agg-view": "true"}, getPods)); sent {
		t.Errorf("an up-to-date role was applied")
	}
	// The last feeding role gone: the rules are emptied.
	gone := aggregating("view", map[string]string{"agg-view": "true"})
	gone.Rules = []rbacv1.PolicyRule{getPods}
	if rules, sent := run(t, "view", gone); !sent || len(rules) != 0 {
		t.Errorf("after the feeding role's deletion: %+v (sent %v)", rules, sent)
	}
	// A role without aggregationRule is not touched.
	if _, sent := run(t, "plain", cr("plain", nil, getPods)); sent {
		t.Errorf("a plain role was applied")
	}
}

// decodeRules reads the rules of an apply patch.
func decodeRules(t *testing.T, patch []byte) []rbacv1.PolicyRule {
	t.Helper()
	var r rbacv1.ClusterRole
	if err := yaml.Unmarshal(patch, &r); err != nil {
		t.Fatalf("apply patch %s: %v", patch, err)
	}
	if r.Kind != "ClusterRole" || r.APIVersion != "rbac.authorization.k8s.io/v1" {
		t.Errorf("apply patch is a %s %s", r.APIVersion, r.Kind)
	}
	return r.Rules
}
