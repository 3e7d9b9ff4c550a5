package integration

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/svcplane/svcplane/internal/plane"
)

// userClient mints a client certificate for user in groups and returns
// the kubeconfig's path and a client with it.
func userClient(t *testing.T, user string, groups ...string) (string, kubernetes.Interface) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := plane.WriteKubeconfig(server.Options.DataDir, path, user, groups, ""); err != nil {
		t.Fatal(err)
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", path)
	if err != nil {
		t.Fatal(err)
	}
	return path, kubernetes.NewForConfigOrDie(cfg)
}

func binding(name, role string, subject rbacv1.Subject) *rbacv1.RoleBinding {
	return &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: name}, Subjects: []rbacv1.Subject{subject},
		RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role}}
}

// TestRBACAuthorization: upstream's bootstrap policy is in place and
// RBAC decides: a user gets 403 with upstream's message until a
// RoleBinding to view exists, then lists pods in that namespace only; an
// admin of a namespace cannot bind cluster-admin there (escalation) but
// can bind view; a ClusterRole labelled aggregate-to-view adds its rules to
// view; SelfSubjectAccessReview, SelfSubjectRulesReview and
// SelfSubjectReview answer for the caller (kubectl auth can-i and whoami).
func TestRBACAuthorization(t *testing.T) {
	skipShort(t)
	admin := server.Client
	ns, other := newNamespace(t, admin), newNamespace(t, admin)
	_, carol := userClient(t, "carol", "devs")

	_, err := carol.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
	want := `pods is forbidden: User "carol" cannot list resource "pods" in API group "" in the namespace "` + ns + `"`
	if !apierrors.IsForbidden(err) || err.Error() != want {
		t.Fatalf("before any binding: %v, want %s", err, want)
	}
	get(admin.RbacV1().RoleBindings(ns).Create(ctx, binding("carol-view", "view", rbacv1.Subject{Kind: "Group", APIGroup: rbacv1.GroupName, Name: "devs"}), metav1.CreateOptions{}))(t)
	eventually(t, "carol may list pods once the view binding is seen", func() bool {
		_, err := carol.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
		return err == nil
	})
	if _, err := carol.CoreV1().Pods(other).List(ctx, metav1.ListOptions{}); !apierrors.IsForbidden(err) {
		t.Errorf("view in %s lets carol list pods in %s: %v", ns, other, err)
	}
	if _, err := carol.CoreV1().Secrets(ns).List(ctx, metav1.ListOptions{}); !apierrors.IsForbidden(err) {
		t.Errorf("view lets carol list secrets: %v", err)
	}

	// edit may not write bindings at all (RBAC's 403, before any
	// escalation check).
	_, erin := userClient(t, "erin-editor")
	get(admin.RbacV1().RoleBindings(ns).Create(ctx, binding("erin-edit", "edit", rbacv1.Subject{Kind: "User", APIGroup: rbacv1.GroupName, Name: "erin-editor"}), metav1.CreateOptions{}))(t)
	eventually(t, "erin may list pods as an editor", func() bool {
		_, err := erin.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
		return err == nil
	})
	_, err = erin.RbacV1().RoleBindings(ns).Create(ctx, binding("grab", "cluster-admin", rbacv1.Subject{Kind: "User", APIGroup: rbacv1.GroupName, Name: "erin-editor"}), metav1.CreateOptions{})
	if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), `User "erin-editor" cannot create resource "rolebindings" in API group "rbac.authorization.k8s.io" in the namespace "`+ns+`"`) {
		t.Errorf("edit user binding cluster-admin: %v", err)
	}

	// An admin of ns may bind view but not cluster-admin.
	_, dave := userClient(t, "dave")
	get(admin.RbacV1().RoleBindings(ns).Create(ctx, binding("dave-admin", "admin", rbacv1.Subject{Kind: "User", APIGroup: rbacv1.GroupName, Name: "dave"}), metav1.CreateOptions{}))(t)
	eventually(t, "dave may bind view in his namespace", func() bool {
		_, err := dave.RbacV1().RoleBindings(ns).Create(ctx, binding("erin-view", "view", rbacv1.Subject{Kind: "User", APIGroup: rbacv1.GroupName, Name: "erin"}), metav1.CreateOptions{})
		return err == nil
	})
	_, err = dave.RbacV1().RoleBindings(ns).Create(ctx, binding("grab", "cluster-admin", rbacv1.Subject{Kind: "User", APIGroup: rbacv1.GroupName, Name: "dave"}), metav1.CreateOptions{})
	if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), `rolebindings.rbac.authorization.k8s.io "grab" is forbidden: user "dave" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:`) {
		t.Errorf("admin binding cluster-admin: %v", err)
	}
	_, err = dave.RbacV1().Roles(ns).Create(ctx, &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "nodes"},
		Rules: []rbacv1.PolicyRule{{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"nodes"}}}}, metav1.CreateOptions{})
	if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), `{APIGroups:[""], Resources:["nodes"], Verbs:["get"]}`) {
		t.Errorf("admin creating a role beyond his rights: %v", err)
	}

	// Aggregation: a labelled ClusterRole's rules join view.
	extra := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "svcplane:test:widgets", Labels: map[string]string{"rbac.authorization.k8s.io/aggregate-to-view": "true"}},
		Rules: []rbacv1.PolicyRule{{Verbs: []string{"get", "list"}, APIGroups: []string{"example.com"}, Resources: []string{"widgets"}}}}
	get(admin.RbacV1().ClusterRoles().Create(ctx, extra, metav1.CreateOptions{}))(t)
	t.Cleanup(func() { _ = admin.RbacV1().ClusterRoles().Delete(ctx, extra.Name, metav1.DeleteOptions{}) })
	eventually(t, "view aggregates the widgets rule", func() bool {
		view, err := admin.RbacV1().ClusterRoles().Get(ctx, "view", metav1.GetOptions{})
		if err != nil {
			return false
		}
		for _, r := range view.Rules {
			if len(r.APIGroups) == 1 && r.APIGroups[0] == "example.com" {
				return true
			}
		}
		return false
	})

	// The reviews, as carol.
	// The authorizer reads roles from its informer: it may see the
	// aggregated rule a moment after the API does.
	var sar *authorizationv1.SelfSubjectAccessReview
	eventually(t, "carol may list widgets through the aggregated view", func() bool {
		sar = get(carol.AuthorizationV1().SelfSubjectAccessReviews().Create(ctx, &authorizationv1.SelfSubjectAccessReview{Spec: authorizationv1.SelfSubjectAccessReviewSpec{
			ResourceAttributes: &authorizationv1.ResourceAttributes{Namespace: ns, Verb: "list", Group: "example.com", Resource: "widgets"}}}, metav1.CreateOptions{}))(t)
		return sar.Status.Allowed
	})
	if !strings.Contains(sar.Status.Reason, `RoleBinding "carol-view/`+ns+`" of ClusterRole "view" to Group "devs"`) {
		t.Errorf("the reason names the binding: %+v", sar.Status)
	}
	sar = get(carol.AuthorizationV1().SelfSubjectAccessReviews().Create(ctx, &authorizationv1.SelfSubjectAccessReview{Spec: authorizationv1.SelfSubjectAccessReviewSpec{
		ResourceAttributes: &authorizationv1.ResourceAttributes{Namespace: ns, Verb: "delete", Resource: "pods"}}}, metav1.CreateOptions{}))(t)
	if sar.Status.Allowed {
		t.Errorf("carol may delete pods: %+v", sar.Status)
	}
	rules := get(carol.AuthorizationV1().SelfSubjectRulesReviews().Create(ctx, &authorizationv1.SelfSubjectRulesReview{Spec: authorizationv1.SelfSubjectRulesReviewSpec{Namespace: ns}}, metav1.CreateOptions{}))(t)
	if len(rules.Status.ResourceRules) < 5 || len(rules.Status.NonResourceRules) == 0 || rules.Status.Incomplete {
		t.Errorf("carol's rules in %s: %+v", ns, rules.Status)
	}
	who := get(carol.AuthenticationV1().SelfSubjectReviews().Create(ctx, &authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{}))(t)
	if who.Status.UserInfo.Username != "carol" || strings.Join(who.Status.UserInfo.Groups, ",") != "devs,system:authenticated" {
		t.Errorf("whoami: %+v", who.Status.UserInfo)
	}
	// carol may not ask about others; the admin may.
	if _, err := carol.AuthorizationV1().SubjectAccessReviews().Create(ctx, &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
		User: "dave", ResourceAttributes: &authorizationv1.ResourceAttributes{Namespace: ns, Verb: "get", Resource: "pods"}}}, metav1.CreateOptions{}); !apierrors.IsForbidden(err) {
		t.Errorf("carol asking a SubjectAccessReview: %v", err)
	}
	sr := get(admin.AuthorizationV1().SubjectAccessReviews().Create(ctx, &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
		User: "dave", ResourceAttributes: &authorizationv1.ResourceAttributes{Namespace: ns, Verb: "create", Group: "rbac.authorization.k8s.io", Resource: "rolebindings"}}}, metav1.CreateOptions{}))(t)
	if !sr.Status.Allowed {
		t.Errorf("SubjectAccessReview for dave: %+v", sr.Status)
	}
}

// TestKubectlAuth: kubectl auth can-i (one question, --list) and whoami
// print what they print against kube-apiserver.
func TestKubectlAuth(t *testing.T) {
	skipShort(t)
	if _, err := exec.LookPath("kubectl"); err != nil {
		t.Skip("no kubectl")
	}
	admin := server.Client
	ns := newNamespace(t, admin)
	kc, frank := userClient(t, "frank")
	get(admin.RbacV1().RoleBindings(ns).Create(ctx, binding("frank-view", "view", rbacv1.Subject{Kind: "User", APIGroup: rbacv1.GroupName, Name: "frank"}), metav1.CreateOptions{}))(t)
	eventually(t, "frank's binding is seen", func() bool {
		_, err := frank.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
		return err == nil
	})
	kubectl := func(args ...string) (string, error) {
		out, err := exec.Command("kubectl", append([]string{"--kubeconfig", kc}, args...)...).CombinedOutput()
		return string(out), err
	}
	if out, err := kubectl("auth", "can-i", "list", "pods", "-n", ns); err != nil || out != "yes\n" {
		t.Errorf("can-i list pods: %q %v", out, err)
	}
	if out, err := kubectl("auth", "can-i", "delete", "pods", "-n", ns); err == nil || out != "no\n" {
		t.Errorf("can-i delete pods: %q %v (kubectl exits 1 on no)", out, err)
	}
	out, err := kubectl("auth", "can-i", "--list", "-n", ns)
	if err != nil {
		t.Fatalf("can-i --list: %v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if strings.Join(strings.Fields(lines[0]), " ") != "Resources Non-Resource URLs Resource Names Verbs" {
		t.Errorf("can-i --list header: %q", lines[0])
	}
	if !strings.Contains(out, "pods ") || !strings.Contains(out, "[get list watch]") || !strings.Contains(out, "selfsubjectaccessreviews.authorization.k8s.io") {
		t.Errorf("can-i --list lacks view's and the basic user's rules:\n%s", out)
	}
	out, err = kubectl("auth", "whoami")
	if err != nil || !hasFields(out, "Username", "frank") {
		t.Errorf("whoami: %v\n%s", err, out)
	}
}

// hasFields reports whether a line of out is exactly the fields key and
// value.
func hasFields(out, key, value string) bool {
	for _, l := range strings.Split(out, "\n") {
		f := strings.Fields(l)
		if len(f) == 2 && f[0] == key && f[1] == value {
			return true
		}
	}
	return false
}
