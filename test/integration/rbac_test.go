package integration

import (
	"os/exec"
	"strings"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestRBACObjects: rbac.authorization.k8s.io/v1 objects are served as
// kube-apiserver serves them: a ClusterRole and a RoleBinding round-trip
// (the binding's roleRef and User subject get their apiGroup default),
// roleRef cannot change, invalid objects are refused with upstream's field
// paths, and kubectl prints the binding columns (ROLE, AGE; wide USERS,
// GROUPS, SERVICEACCOUNTS) and the roles' CREATED AT.
func TestRBACObjects(t *testing.T) {
	skipShort(t)
	c := server.Client
	ns := newNamespace(t, c)
	rbac := c.RbacV1()

	cr := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "svcplane:test:reader"}, Rules: []rbacv1.PolicyRule{
		{Verbs: []string{"get", "list"}, APIGroups: []string{""}, Resources: []string{"pods"}},
		{Verbs: []string{"get"}, NonResourceURLs: []string{"/healthz"}}}}
	got := get(rbac.ClusterRoles().Create(ctx, cr, metav1.CreateOptions{}))(t)
	t.Cleanup(func() { _ = rbac.ClusterRoles().Delete(ctx, cr.Name, metav1.DeleteOptions{}) })
	if len(got.Rules) != 2 || got.Rules[1].NonResourceURLs[0] != "/healthz" {
		t.Fatalf("clusterrole round-trip: %+v", got)
	}

	rb := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "readers"},
		RoleRef: rbacv1.RoleRef{Kind: "ClusterRole", Name: cr.Name},
		Subjects: []rbacv1.Subject{{Kind: "User", Name: "alice"}, {Kind: "Group", Name: "devs"},
			{Kind: "ServiceAccount", Name: "robot"}}}
	b := get(rbac.RoleBindings(ns).Create(ctx, rb, metav1.CreateOptions{}))(t)
	if b.RoleRef.APIGroup != rbacv1.GroupName || b.Subjects[0].APIGroup != rbacv1.GroupName ||
		b.Subjects[1].APIGroup != rbacv1.GroupName || b.Subjects[2].APIGroup != "" {
		t.Fatalf("rolebinding defaults: %+v", b)
	}
	b = get(rbac.RoleBindings(ns).Get(ctx, rb.Name, metav1.GetOptions{}))(t)
	if len(b.Subjects) != 3 || b.RoleRef.Name != cr.Name {
		t.Fatalf("rolebinding round-trip: %+v", b)
	}
	b.RoleRef.Name = "view"
	if _, err := rbac.RoleBindings(ns).Update(ctx, b, metav1.UpdateOptions{}); !apierrors.IsInvalid(err) ||
		!strings.Contains(err.Error(), "roleRef: Invalid value") || !strings.Contains(err.Error(), "cannot change roleRef") {
		t.Fatalf("roleRef change: %v", err)
	}

	badRole := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "bad"}, Rules: []rbacv1.PolicyRule{
		{Verbs: []string{"get"}, NonResourceURLs: []string{"/metrics"}}, {APIGroups: []string{""}, Resources: []string{"pods"}}}}
	_, err := rbac.Roles(ns).Create(ctx, badRole, metav1.CreateOptions{})
	if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "rules[0].nonResourceURLs") ||
		!strings.Contains(err.Error(), "rules[1].verbs: Required value") {
		t.Fatalf("invalid role: %v", err)
	}
	badCRB := &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "svcplane:test:bad"},
		RoleRef:  rbacv1.RoleRef{Kind: "Role", Name: "r"},
		Subjects: []rbacv1.Subject{{Kind: "ServiceAccount", Name: "robot"}}}
	_, err = rbac.ClusterRoleBindings().Create(ctx, badCRB, metav1.CreateOptions{})
	if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "roleRef.kind: Unsupported value") ||
		!strings.Contains(err.Error(), "subjects[0].namespace: Required value") {
		t.Fatalf("invalid clusterrolebinding: %v", err)
	}

	kubectl, err := exec.LookPath("kubectl")
	if err != nil {
		t.Log("no kubectl on PATH: tables not checked")
		return
	}
	run := func(args ...string) []string {
		out, err := exec.Command(kubectl, append([]string{"--kubeconfig", server.Kubeconfig, "-n", ns}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		var lines []string
		for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			lines = append(lines, strings.Join(strings.Fields(l), " "))
		}
		return lines
	}
	// The service account is printed "namespace/name" from the subject
	// itself: "/robot" here, as kube-apiserver prints it (a RoleBinding's
	// subject without namespace means the binding's).
	lines := run("get", "rolebindings", "-o", "wide")
	if len(lines) != 2 || lines[0] != "NAME ROLE AGE USERS GROUPS SERVICEACCOUNTS" ||
		!strings.HasPrefix(lines[1], "readers ClusterRole/"+cr.Name+" ") ||
		!strings.HasSuffix(lines[1], " alice devs /robot") {
		t.Fatalf("kubectl get rolebindings -o wide:\n%s", strings.Join(lines, "\n"))
	}
	lines = run("get", "clusterroles", cr.Name)
	if len(lines) != 2 || lines[0] != "NAME CREATED AT" || !strings.HasPrefix(lines[1], cr.Name+" ") ||
		!strings.HasSuffix(lines[1], "Z") {
		t.Fatalf("kubectl get clusterroles:\n%s", strings.Join(lines, "\n"))
	}
}
