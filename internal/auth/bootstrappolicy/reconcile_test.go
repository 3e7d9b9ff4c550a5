package bootstrappolicy

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/component-helpers/auth/rbac/validation"
)

// writes are the actions that change the fake's objects.
func writes(c *fake.Clientset) []string {
	var out []string
	for _, a := range c.Actions() {
		switch a.GetVerb() {
		case "get", "list", "watch":
			continue
		}
		name := ""
		switch a := a.(type) {
		case k8stesting.CreateAction:
			name = objectName(a.GetObject())
		case k8stesting.UpdateAction:
			name = objectName(a.GetObject())
		case k8stesting.DeleteAction:
			name = a.GetName()
		}
		out = append(out, a.GetVerb()+" "+a.GetResource().Resource+" "+name)
	}
	return out
}

func objectName(o runtime.Object) string {
	if m, ok := o.(metav1.Object); ok {
		return m.GetName()
	}
	return ""
}

func reconcileFake(t *testing.T, c *fake.Clientset) {
	t.Helper()
	if err := reconcileOnce(context.Background(), c, Data()); err != nil {
		t.Fatalf("reconcile: %v", err)
	}
}

func clusterRole(t *testing.T, c *fake.Clientset, name string) *rbacv1.ClusterRole {
	t.Helper()
	r, err := c.RbacV1().ClusterRoles().Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get clusterrole %s: %v", name, err)
	}
	return r
}

func clusterRoleBinding(t *testing.T, c *fake.Clientset, name string) *rbacv1.ClusterRoleBinding {
	t.Helper()
	b, err := c.RbacV1().ClusterRoleBindings().Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get clusterrolebinding %s: %v", name, err)
	}
	return b
}

func policyClusterRole(name string) rbacv1.ClusterRole {
	for _, r := range ClusterRoles() {
		if r.Name == name {
			return r
		}
	}
	panic("no bootstrap ClusterRole " + name)
}

func policyClusterRoleBinding(name string) rbacv1.ClusterRoleBinding {
	for _, b := range ClusterRoleBindings() {
		if b.Name == name {
			return b
		}
	}
	panic("no bootstrap ClusterRoleBinding " + name)
}

var userRule = rbacv1.PolicyRule{Verbs: []string{"get"}, APIGroups: []string{"example.com"}, Resources: []string{"widgets"}}

func TestReconcileFreshCluster(t *testing.T) {
	c := fake.NewClientset()
	reconcileFake(t, c)
	ctx := context.Background()

	p := Data()
	for _, want := range p.ClusterRoles {
		got := clusterRole(t, c, want.Name)
		if !apiequality.Semantic.DeepEqual(got.Rules, want.Rules) {
			t.Errorf("clusterrole %s rules = %v, want %v", want.Name, got.Rules, want.Rules)
		}
		if (got.AggregationRule == nil) != (want.AggregationRule == nil) {
			t.Errorf("clusterrole %s aggregationRule = %v, want %v", want.Name, got.AggregationRule, want.AggregationRule)
		}
		if got.Annotations[rbacv1.AutoUpdateAnnotationKey] != "true" || got.Labels["kubernetes.io/bootstrapping"] != "rbac-defaults" {
			t.Errorf("clusterrole %s metadata = %v %v", want.Name, got.Labels, got.Annotations)
		}
	}
	for _, want := range p.ClusterRoleBindings {
		got := clusterRoleBinding(t, c, want.Name)
		if got.RoleRef != want.RoleRef || !slices.Equal(got.Subjects, want.Subjects) {
			t.Errorf("clusterrolebinding %s = %v %v, want %v %v", want.Name, got.RoleRef, got.Subjects, want.RoleRef, want.Subjects)
		}
	}
	for ns, roles := range p.NamespaceRoles {
		if _, err := c.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{}); err != nil {
			t.Errorf("namespace %s of bootstrap roles: %v", ns, err)
		}
		for _, want := range roles {
			got, err := c.RbacV1().Roles(ns).Get(ctx, want.Name, metav1.GetOptions{})
			if err != nil || !apiequality.Semantic.DeepEqual(got.Rules, want.Rules) {
				t.Errorf("role %s/%s = %v (%v), want rules %v", ns, want.Name, got, err, want.Rules)
			}
		}
	}
	for ns, bindings := range p.NamespaceRoleBindings {
		for _, want := range bindings {
			got, err := c.RbacV1().RoleBindings(ns).Get(ctx, want.Name, metav1.GetOptions{})
			if err != nil || got.RoleRef != want.RoleRef || !slices.Equal(got.Subjects, want.Subjects) {
				t.Errorf("rolebinding %s/%s = %v (%v), want %v %v", ns, want.Name, got, err, want.RoleRef, want.Subjects)
			}
		}
	}

	creates := 0
	for _, w := range writes(c) {
		if strings.HasPrefix(w, "create ") && !strings.HasPrefix(w, "create namespaces ") {
			creates++
		} else if !strings.HasPrefix(w, "create namespaces ") {
			t.Errorf("fresh cluster: unexpected write %s", w)
		}
	}
	want := len(p.ClusterRoles) + len(p.ClusterRoleBindings)
	for ns := range p.NamespaceRoles {
		want += len(p.NamespaceRoles[ns])
	}
	for ns := range p.NamespaceRoleBindings {
		want += len(p.NamespaceRoleBindings[ns])
	}
	if creates != want {
		t.Errorf("fresh cluster: %d creates of RBAC objects, want one per bootstrap object (%d)", creates, want)
	}
}

func TestReconcileSecondRunWritesNothing(t *testing.T) {
	c := fake.NewClientset()
	reconcileFake(t, c)
	c.ClearActions()
	reconcileFake(t, c)
	if w := writes(c); len(w) != 0 {
		t.Errorf("second run wrote %d times: %v", len(w), w)
	}
	if len(c.Actions()) == 0 {
		t.Error("second run made no request at all")
	}
}

// TestReconcileProtected: an object annotated autoupdate "false" is left
// exactly as its user made it, however far from the policy.
func TestReconcileProtected(t *testing.T) {
	role := policyClusterRole("system:basic-user")
	role.Annotations[rbacv1.AutoUpdateAnnotationKey] = "false"
	role.Rules = []rbacv1.PolicyRule{userRule}
	binding := policyClusterRoleBinding("system:basic-user")
	binding.Annotations[rbacv1.AutoUpdateAnnotationKey] = "false"
	binding.Subjects = []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: "alice"}}
	c := fake.NewClientset(&role, &binding)

	reconcileFake(t, c)
	if got := clusterRole(t, c, role.Name); !apiequality.Semantic.DeepEqual(got.Rules, role.Rules) || got.Annotations[rbacv1.AutoUpdateAnnotationKey] != "false" {
		t.Errorf("protected clusterrole changed: %v %v", got.Annotations, got.Rules)
	}
	if got := clusterRoleBinding(t, c, binding.Name); !slices.Equal(got.Subjects, binding.Subjects) {
		t.Errorf("protected clusterrolebinding changed: %v", got.Subjects)
	}
	for _, w := range writes(c) {
		if strings.HasSuffix(w, " system:basic-user") {
			t.Errorf("protected object written: %s", w)
		}
	}
}

// TestReconcileUnion: an object annotated autoupdate "true", or not
// annotated, gets back what it lacks and keeps what its user added.
func TestReconcileUnion(t *testing.T) {
	annotated := policyClusterRole("system:discovery")
	removed := annotated.Rules[0]
	annotated.Rules = append(annotated.Rules[1:], userRule)

	unannotated := policyClusterRole("system:public-info-viewer")
	unannotated.Annotations = nil
	unannotated.Rules = nil

	binding := policyClusterRoleBinding("system:basic-user")
	alice := rbacv1.Subject{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: "alice"}
	binding.Subjects = []rbacv1.Subject{alice}

	c := fake.NewClientset(&annotated, &unannotated, &binding)
	reconcileFake(t, c)

	got := clusterRole(t, c, annotated.Name)
	if ok, missing := validation.Covers(got.Rules, append(policyClusterRole(annotated.Name).Rules, userRule)); !ok {
		t.Errorf("clusterrole %s lacks %v after reconcile (removed %v)", annotated.Name, missing, removed)
	}
	got = clusterRole(t, c, unannotated.Name)
	if ok, missing := validation.Covers(got.Rules, policyClusterRole(unannotated.Name).Rules); !ok || got.Annotations[rbacv1.AutoUpdateAnnotationKey] != "true" {
		t.Errorf("unannotated clusterrole %s: lacks %v, annotations %v", unannotated.Name, missing, got.Annotations)
	}
	gotBinding := clusterRoleBinding(t, c, binding.Name)
	want := append([]rbacv1.Subject{alice}, policyClusterRoleBinding(binding.Name).Subjects...)
	if !slices.Equal(gotBinding.Subjects, want) {
		t.Errorf("clusterrolebinding %s subjects = %v, want %v", binding.Name, gotBinding.Subjects, want)
	}
}

func TestReconcileRoleRefChanged(t *testing.T) {
	binding := policyClusterRoleBinding("system:kube-dns")
	binding.RoleRef.Name = "cluster-admin"
	binding.UID = "old"
	c := fake.NewClientset(&binding)
	reconcileFake(t, c)
	if got := clusterRoleBinding(t, c, binding.Name); got.RoleRef != policyClusterRoleBinding(binding.Name).RoleRef {
		t.Errorf("clusterrolebinding %s roleRef = %v, want the policy's", binding.Name, got.RoleRef)
	}
	if !slices.Contains(writes(c), "delete clusterrolebindings system:kube-dns") {
		t.Errorf("roleRef changed: binding not deleted and re-created: %v", writes(c))
	}
}

// TestPrimeAggregatedClusterRoles: a pre-1.9 edit role (not aggregated,
// with a rule its admin added) hands its rules to system:aggregate-to-edit.
func TestPrimeAggregatedClusterRoles(t *testing.T) {
	edit := policyClusterRole("edit")
	edit.AggregationRule = nil
	edit.Rules = []rbacv1.PolicyRule{userRule}
	c := fake.NewClientset(&edit)
	reconcileFake(t, c)

	agg := clusterRole(t, c, "system:aggregate-to-edit")
	if ok, missing := validation.Covers(agg.Rules, append(policyClusterRole(agg.Name).Rules, userRule)); !ok {
		t.Errorf("system:aggregate-to-edit lacks %v", missing)
	}
	if agg.Labels["rbac.authorization.k8s.io/aggregate-to-edit"] != "true" {
		t.Errorf("system:aggregate-to-edit labels = %v", agg.Labels)
	}
	if got := clusterRole(t, c, "edit"); got.AggregationRule == nil {
		t.Error("edit did not become aggregated")
	}
	// Once aggregated, nothing is copied again.
	_ = c.RbacV1().ClusterRoles().Delete(context.Background(), "system:aggregate-to-view", metav1.DeleteOptions{})
	c.ClearActions()
	reconcileFake(t, c)
	if !slices.Equal(writes(c), []string{"create clusterroles system:aggregate-to-view"}) {
		t.Errorf("after deleting system:aggregate-to-view: writes %v, want its creation from the policy only", writes(c))
	}
}

// TestPrimeSplitClusterRoleBindings: a pre-1.14 system:discovery binding's
// subjects carry over to system:public-info-viewer when that is missing.
func TestPrimeSplitClusterRoleBindings(t *testing.T) {
	discovery := policyClusterRoleBinding("system:discovery")
	bob := rbacv1.Subject{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: "bob"}
	discovery.Subjects = append(discovery.Subjects, bob)
	c := fake.NewClientset(&discovery)
	reconcileFake(t, c)

	got := clusterRoleBinding(t, c, "system:public-info-viewer")
	if got.RoleRef.Name != "system:public-info-viewer" || !slices.Contains(got.Subjects, bob) {
		t.Errorf("system:public-info-viewer = %v %v, want bob among its subjects", got.RoleRef, got.Subjects)
	}
	for _, s := range policyClusterRoleBinding("system:public-info-viewer").Subjects {
		if !slices.Contains(got.Subjects, s) {
			t.Errorf("system:public-info-viewer lacks the policy's subject %v", s)
		}
	}
}

// TestReconcileRetriesUntilAPIAnswers: the API (or etcd) down at first,
// then up; a conflict on one update is retried.
func TestReconcileRetriesUntilAPIAnswers(t *testing.T) {
	role := policyClusterRole("system:discovery")
	role.Rules = nil
	c := fake.NewClientset(&role)
	var lists, conflicts atomic.Int32
	c.PrependReactor("list", "clusterroles", func(k8stesting.Action) (bool, runtime.Object, error) {
		if lists.Add(1) <= 2 {
			return true, nil, apierrors.NewServiceUnavailable("etcd is starting")
		}
		return false, nil, nil
	})
	c.PrependReactor("update", "clusterroles", func(k8stesting.Action) (bool, runtime.Object, error) {
		if conflicts.Add(1) == 1 {
			return true, nil, apierrors.NewConflict(schema.GroupResource{Group: rbacv1.GroupName, Resource: "clusterroles"}, role.Name, errors.New("changed"))
		}
		return false, nil, nil
	})
	if err := Reconcile(context.Background(), c); err != nil {
		t.Fatalf("Reconcile: %v", err)
	}
	if lists.Load() != 3 || conflicts.Load() != 2 {
		t.Errorf("%d lists (want 3: two failed), %d updates (want 2: one conflict)", lists.Load(), conflicts.Load())
	}
	if ok, _ := validation.Covers(clusterRole(t, c, role.Name).Rules, policyClusterRole(role.Name).Rules); !ok {
		t.Error("system:discovery not reconciled after the conflict")
	}
}

func TestReconcileGivesUp(t *testing.T) {
	c := fake.NewClientset()
	c.PrependReactor("create", "clusterroles", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(schema.GroupResource{Group: rbacv1.GroupName, Resource: "clusterroles"}, "", errors.New("no"))
	})
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	err := Reconcile(ctx, c)
	if err == nil || !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "clusterrole cluster-admin") {
		t.Fatalf("Reconcile = %v, want the last pass's errors (forbidden creates, naming the roles)", err)
	}
	// The pass went on past the failures: bindings were created.
	if _, err := c.RbacV1().ClusterRoleBindings().Get(context.Background(), "cluster-admin", metav1.GetOptions{}); err != nil {
		t.Errorf("bindings not reconciled after role failures: %v", err)
	}
}
