package bootstrappolicy

import (
	"strings"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
)

func TestDataDecodes(t *testing.T) {
	p := Data()
	if len(p.ClusterRoles) == 0 || len(p.ClusterRoleBindings) == 0 || len(p.NamespaceRoles) == 0 || len(p.NamespaceRoleBindings) == 0 {
		t.Fatalf("empty policy: %d ClusterRoles, %d ClusterRoleBindings, %d namespaces with Roles, %d with RoleBindings",
			len(p.ClusterRoles), len(p.ClusterRoleBindings), len(p.NamespaceRoles), len(p.NamespaceRoleBindings))
	}
	again, err := Encode(p)
	if err != nil {
		t.Fatal(err)
	}
	if string(again) != string(policyYAML) {
		t.Errorf("%s does not survive Decode then Encode unchanged", DataFile)
	}
}

// TestBootstrapMetadata checks what every bootstrap object carries.
func TestBootstrapMetadata(t *testing.T) {
	check := func(kind, name string, labels, annotations map[string]string) {
		t.Helper()
		if labels["kubernetes.io/bootstrapping"] != "rbac-defaults" {
			t.Errorf("%s %s: labels %v lack kubernetes.io/bootstrapping=rbac-defaults", kind, name, labels)
		}
		if annotations[rbacv1.AutoUpdateAnnotationKey] != "true" {
			t.Errorf("%s %s: annotations %v lack %s=true", kind, name, annotations, rbacv1.AutoUpdateAnnotationKey)
		}
	}
	for _, r := range ClusterRoles() {
		check("ClusterRole", r.Name, r.Labels, r.Annotations)
	}
	for _, b := range ClusterRoleBindings() {
		check("ClusterRoleBinding", b.Name, b.Labels, b.Annotations)
	}
	for ns, roles := range NamespaceRoles() {
		for _, r := range roles {
			if r.Namespace != ns {
				t.Errorf("Role %s/%s listed under %s", r.Namespace, r.Name, ns)
			}
			check("Role", ns+"/"+r.Name, r.Labels, r.Annotations)
		}
	}
	for ns, bindings := range NamespaceRoleBindings() {
		for _, b := range bindings {
			if b.Namespace != ns {
				t.Errorf("RoleBinding %s/%s listed under %s", b.Namespace, b.Name, ns)
			}
			check("RoleBinding", ns+"/"+b.Name, b.Labels, b.Annotations)
		}
	}
}

func TestAggregatedRoles(t *testing.T) {
	roles := map[string]rbacv1.ClusterRole{}
	for _, r := range ClusterRoles() {
		roles[r.Name] = r
	}
	for _, name := range []string{"admin", "edit", "view"} {
		agg := roles[name].AggregationRule
		if agg == nil || len(agg.ClusterRoleSelectors) == 0 {
			t.Errorf("ClusterRole %s has no aggregationRule", name)
			continue
		}
		label := "rbac.authorization.k8s.io/aggregate-to-" + name
		if agg.ClusterRoleSelectors[0].MatchLabels[label] != "true" {
			t.Errorf("ClusterRole %s selects %v, not %s=true", name, agg.ClusterRoleSelectors, label)
		}
		if part, ok := roles["system:aggregate-to-"+name]; !ok || part.Labels[label] != "true" || len(part.Rules) == 0 {
			t.Errorf("ClusterRole system:aggregate-to-%s missing, unlabelled or without rules: %+v", name, part)
		}
	}
	if len(Data().ClusterRolesToAggregate) != 3 {
		t.Errorf("ClusterRolesToAggregate = %v, want admin, edit and view", Data().ClusterRolesToAggregate)
	}
	controllers := 0
	for name := range roles {
		if strings.HasPrefix(name, "system:controller:") {
			controllers++
		}
	}
	if controllers == 0 {
		t.Error("no system:controller:* ClusterRoles")
	}
}

func TestFreshCopies(t *testing.T) {
	roles := ClusterRoles()
	roles[0].Name = "changed"
	roles[0].Rules = append(roles[0].Rules, rbacv1.PolicyRule{Verbs: []string{"changed"}})
	roles[0].Labels["changed"] = "true"
	bindings := ClusterRoleBindings()
	bindings[0].Subjects[0].Name = "changed"
	nsRoles := NamespaceRoles()
	nsRoles["kube-system"][0].Rules[0].Verbs[0] = "changed"
	delete(nsRoles, "kube-public")
	nsBindings := NamespaceRoleBindings()
	nsBindings["kube-system"][0].Subjects = nil

	if r := ClusterRoles()[0]; r.Name == "changed" || r.Labels["changed"] != "" || len(r.Rules) == len(roles[0].Rules) {
		t.Errorf("ClusterRoles shares memory between calls: %+v", r)
	}
	if b := ClusterRoleBindings()[0]; b.Subjects[0].Name == "changed" {
		t.Error("ClusterRoleBindings shares memory between calls")
	}
	if r := NamespaceRoles(); r["kube-system"][0].Rules[0].Verbs[0] == "changed" || r["kube-public"] == nil {
		t.Error("NamespaceRoles shares memory between calls")
	}
	if b := NamespaceRoleBindings(); b["kube-system"][0].Subjects == nil {
		t.Error("NamespaceRoleBindings shares memory between calls")
	}
}
