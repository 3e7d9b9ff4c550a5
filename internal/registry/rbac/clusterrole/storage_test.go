package clusterrole

import (
	"context"
	"reflect"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

func TestValidate(t *testing.T) {
	sel := func(m map[string]string) *rbacv1.AggregationRule {
		return &rbacv1.AggregationRule{ClusterRoleSelectors: []metav1.LabelSelector{{MatchLabels: m}}}
	}
	healthz := rbacv1.PolicyRule{Verbs: []string{"get"}, NonResourceURLs: []string{"/healthz"}}
	cases := []struct {
		name string
		role *rbacv1.ClusterRole
		want []string
	}{
		{"non-resource URLs", &rbacv1.ClusterRole{Rules: []rbacv1.PolicyRule{healthz}}, nil},
		{"aggregation", &rbacv1.ClusterRole{AggregationRule: sel(map[string]string{"a": "true"})}, nil},
		{"aggregation with rules", &rbacv1.ClusterRole{Rules: []rbacv1.PolicyRule{healthz}, AggregationRule: sel(map[string]string{"a": "true"})}, nil},
		{"aggregation without selectors", &rbacv1.ClusterRole{AggregationRule: &rbacv1.AggregationRule{}},
			[]string{"aggregationRule.clusterRoleSelectors: Required value"}},
		{"bad selector key", &rbacv1.ClusterRole{AggregationRule: sel(map[string]string{"bad key!": "x"})},
			[]string{"aggregationRule.clusterRoleSelectors[0].matchLabels: Invalid value", "aggregationRule.clusterRoleSelectors[0]: Invalid value"}},
		{"empty rule", &rbacv1.ClusterRole{Rules: []rbacv1.PolicyRule{{}}},
			[]string{"rules[0].verbs: Required value", "rules[0].apiGroups: Required value", "rules[0].resources: Required value"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := short(Validate(c.role, false))
			if len(got) != len(c.want) {
				t.Fatalf("got %q, want %q", got, c.want)
			}
			for i := range got {
				if got[i] != c.want[i] {
					t.Errorf("got %q, want %q", got, c.want)
				}
			}
		})
	}
}

// TestValidateUpdateWithStoredBadLabelValue: an expression value the stored
// object already had wrong skips the value check on update, as upstream,
// but the selector must still parse (upstream's "invalid label selector.").
func TestValidateUpdateWithStoredBadLabelValue(t *testing.T) {
	def := Definition()
	in := func(value string) *rbacv1.ClusterRole {
		return &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "a"}, AggregationRule: &rbacv1.AggregationRule{
			ClusterRoleSelectors: []metav1.LabelSelector{{MatchExpressions: []metav1.LabelSelectorRequirement{
				{Key: "k", Operator: metav1.LabelSelectorOpIn, Values: []string{value}}}}}}}
	}
	bad, good := in("bad value!"), in("v")
	ctx := context.Background()
	parse := []string{"aggregationRule.clusterRoleSelectors[0]: Invalid value"}
	both := append([]string{"aggregationRule.clusterRoleSelectors[0].matchExpressions[0].values[0]: Invalid value"}, parse...)
	for _, c := range []struct {
		name string
		got  field.ErrorList
		want []string
	}{
		{"bad value kept", def.ValidateUpdate(ctx, bad, bad), parse},
		{"bad value introduced", def.ValidateUpdate(ctx, bad, good), both},
		{"bad value created", def.Validate(ctx, bad), both},
		{"bad value fixed", def.ValidateUpdate(ctx, good, bad), nil},
	} {
		if got := short(c.got); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: got %q, want %q", c.name, got, c.want)
		}
	}
}

func short(errs field.ErrorList) []string {
	var out []string
	for _, e := range errs {
		out = append(out, e.Field+": "+e.Type.String())
	}
	return out
}
