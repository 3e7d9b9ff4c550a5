package rbacutil

import (
	"reflect"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// errs reduces an error list to "path: type: detail".
func errs(list field.ErrorList) []string {
	out := []string{}
	for _, e := range list {
		out = append(out, e.Field+": "+e.Type.String()+": "+e.Detail)
	}
	return out
}

func TestValidateName(t *testing.T) {
	for name, want := range map[string][]string{
		"system:controller:x": nil,
		"Admin_Role":          nil,
		".":                   {"may not be '.'"},
		"..":                  {"may not be '..'"},
		"a/b":                 {"may not contain '/'"},
		"a%b":                 {"may not contain '%'"},
	} {
		if got := ValidateName(name, false); !reflect.DeepEqual(got, want) {
			t.Errorf("%q: got %q, want %q", name, got, want)
		}
		// generateName is checked as a whole name too (upstream ignores prefix).
		if got := ValidateName(name, true); !reflect.DeepEqual(got, want) {
			t.Errorf("%q as prefix: got %q, want %q", name, got, want)
		}
	}
}

func TestValidatePolicyRule(t *testing.T) {
	urls := []string{"/healthz"}
	cases := []struct {
		name       string
		rule       rbacv1.PolicyRule
		namespaced bool
		want       []string
	}{
		{"resource rule", rbacv1.PolicyRule{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"pods"}}, true, []string{}},
		{"empty verbs", rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"pods"}}, true,
			[]string{"r.verbs: Required value: verbs must contain at least one value"}},
		{"nothing", rbacv1.PolicyRule{}, false, []string{
			"r.verbs: Required value: verbs must contain at least one value",
			"r.apiGroups: Required value: resource rules must supply at least one api group",
			"r.resources: Required value: resource rules must supply at least one resource"}},
		{"non-resource URL in a ClusterRole", rbacv1.PolicyRule{Verbs: []string{"get"}, NonResourceURLs: urls}, false, []string{}},
		{"non-resource URL in a Role", rbacv1.PolicyRule{Verbs: []string{"get"}, NonResourceURLs: urls}, true,
			[]string{"r.nonResourceURLs: Invalid value: namespaced rules cannot apply to non-resource URLs"}},
		{"resourceNames and non-resource URLs", rbacv1.PolicyRule{Verbs: []string{"get"}, NonResourceURLs: urls, ResourceNames: []string{"x"}}, false,
			[]string{"r.nonResourceURLs: Invalid value: rules cannot apply to both regular resources and non-resource URLs"}},
		{"both, in a Role", rbacv1.PolicyRule{Verbs: []string{"get"}, NonResourceURLs: urls, APIGroups: []string{""}}, true, []string{
			"r.nonResourceURLs: Invalid value: namespaced rules cannot apply to non-resource URLs",
			"r.nonResourceURLs: Invalid value: rules cannot apply to both regular resources and non-resource URLs"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := errs(ValidatePolicyRule(c.rule, c.namespaced, field.NewPath("r"))); !reflect.DeepEqual(got, c.want) {
				t.Errorf("got  %q\nwant %q", got, c.want)
			}
		})
	}
}

func TestValidateRoleRef(t *testing.T) {
	cases := []struct {
		name  string
		ref   rbacv1.RoleRef
		kinds []string
		want  []string
	}{
		{"role", rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "r"}, []string{"Role", "ClusterRole"}, []string{}},
		{"role in a cluster binding", rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "r"}, []string{"ClusterRole"},
			[]string{`roleRef.kind: Unsupported value: supported values: "ClusterRole"`}},
		{"nothing", rbacv1.RoleRef{}, []string{"ClusterRole"}, []string{
			`roleRef.apiGroup: Unsupported value: supported values: "rbac.authorization.k8s.io"`,
			`roleRef.kind: Unsupported value: supported values: "ClusterRole"`,
			"roleRef.name: Required value: "}},
		{"bad name", rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "a/b"}, []string{"ClusterRole"},
			[]string{"roleRef.name: Invalid value: may not contain '/'"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := errs(ValidateRoleRef(c.ref, c.kinds...)); !reflect.DeepEqual(got, c.want) {
				t.Errorf("got  %q\nwant %q", got, c.want)
			}
		})
	}
	ref := rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "view"}
	if got := ValidateRoleRefUpdate(ref, ref); got != nil {
		t.Errorf("unchanged roleRef: %v", got)
	}
	changed := ref
	changed.Name = "edit"
	if got := errs(ValidateRoleRefUpdate(changed, ref)); !reflect.DeepEqual(got, []string{"roleRef: Invalid value: cannot change roleRef"}) {
		t.Errorf("changed roleRef: %q", got)
	}
}

func TestValidateSubject(t *testing.T) {
	cases := []struct {
		name       string
		s          rbacv1.Subject
		namespaced bool
		want       []string
	}{
		{"user", rbacv1.Subject{Kind: "User", Name: "alice", APIGroup: rbacv1.GroupName}, false, []string{}},
		{"group without apiGroup", rbacv1.Subject{Kind: "Group", Name: "g"}, false,
			[]string{`s.apiGroup: Unsupported value: supported values: "rbac.authorization.k8s.io"`}},
		{"service account in a RoleBinding", rbacv1.Subject{Kind: "ServiceAccount", Name: "sa"}, true, []string{}},
		{"service account without namespace", rbacv1.Subject{Kind: "ServiceAccount", Name: "sa"}, false,
			[]string{"s.namespace: Required value: "}},
		{"service account with apiGroup", rbacv1.Subject{Kind: "ServiceAccount", Name: "sa", Namespace: "ns", APIGroup: "x"}, false,
			[]string{`s.apiGroup: Unsupported value: supported values: ""`}},
		{"service account bad name", rbacv1.Subject{Kind: "ServiceAccount", Name: "SA", Namespace: "ns"}, false,
			[]string{"s.name: Invalid value: a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"}},
		{"bad kind, no name", rbacv1.Subject{Kind: "Robot"}, true, []string{
			"s.name: Required value: ",
			`s.kind: Unsupported value: supported values: "ServiceAccount", "User", "Group"`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := errs(ValidateSubject(c.s, c.namespaced, field.NewPath("s"))); !reflect.DeepEqual(got, c.want) {
				t.Errorf("got  %q\nwant %q", got, c.want)
			}
		})
	}
}

func TestDefaultBinding(t *testing.T) {
	ref := rbacv1.RoleRef{Kind: "ClusterRole", Name: "view"}
	subjects := []rbacv1.Subject{{Kind: "User", Name: "u"}, {Kind: "Group", Name: "g"}, {Kind: "ServiceAccount", Name: "sa"},
		{Kind: "Robot", Name: "r"}, {Kind: "User", Name: "v", APIGroup: "other"}}
	DefaultBinding(&ref, subjects)
	if ref.APIGroup != rbacv1.GroupName {
		t.Errorf("roleRef.apiGroup %q", ref.APIGroup)
	}
	var got []string
	for _, s := range subjects {
		got = append(got, s.APIGroup)
	}
	if want := []string{rbacv1.GroupName, rbacv1.GroupName, "", "", "other"}; !reflect.DeepEqual(got, want) {
		t.Errorf("subject apiGroups %q, want %q", got, want)
	}
}

func TestBindingRow(t *testing.T) {
	subjects := []rbacv1.Subject{{Kind: "User", Name: "alice"}, {Kind: "ServiceAccount", Name: "sa", Namespace: "ns"},
		{Kind: "Group", Name: "g1"}, {Kind: "User", Name: "bob"}, {Kind: "Robot", Name: "r"}}
	b := &rbacv1.ClusterRoleBinding{}
	got := BindingRow(b, rbacv1.RoleRef{Kind: "ClusterRole", Name: "view"}, subjects)
	want := []interface{}{"ClusterRole/view", "<unknown>", "alice, bob", "g1", "ns/sa"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	if cols := BindingColumns("clusterRoleBinding"); len(cols) != len(want) || cols[2].Priority != 1 || cols[1].Priority != 0 {
		t.Errorf("columns %+v", cols)
	}
}
