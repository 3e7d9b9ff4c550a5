package bootstrappolicy

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/util/retry"
	"k8s.io/component-helpers/auth/rbac/reconciliation"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	"github.com/svcplane/svcplane/internal/bootstrap/periodic"
)

// PostStartHookName is the name of kube-apiserver's post-start hook that
// reconciles the bootstrap policy.
const PostStartHookName = "rbac/bootstrap-roles"

// Timeout bounds Reconcile: kube-apiserver's hook gives up after 30
// seconds, and the server exits.
const Timeout = 30 * time.Second

// Reconcile puts the bootstrap policy in place through client, as
// kube-apiserver's rbac/bootstrap-roles post-start hook does, and returns
// nil once every object is reconciled. It retries whole passes (100 ms
// after the first failure, doubling up to 5 s) until one succeeds, for at
// most Timeout or until ctx ends, and then returns the last pass's errors.
//
// A pass first lists ClusterRoles and ClusterRoleBindings (the API and its
// storage answer), primes the roles that became aggregated and the
// bindings that were split (prime.go), then, for every bootstrap object in
// order, runs k8s.io/component-helpers' reconciliation with Confirm and
// without removal of extras:
//   - a missing object is created (a Role's namespace too, if missing);
//   - an existing one annotated rbac.authorization.kubernetes.io/autoupdate
//     "false" is left alone, whatever it lacks;
//   - any other existing one (annotated "true" or not annotated) gets the
//     policy's labels and annotations where it lacks them, the rules,
//     aggregation selectors or subjects it lacks appended, and keeps every
//     extra one; a binding whose roleRef differs is deleted and re-created;
//   - an object that needs nothing is not written.
//
// Conflicts and 503s (storage not ready) are retried per object with
// client-go's retry.DefaultBackoff; any other failure is remembered and
// the pass goes on with the next object, as upstream's does.
func Reconcile(ctx context.Context, client kubernetes.Interface) error {
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	var last error
	err := periodic.Until(ctx, clock.RealClock{}, "Unable to reconcile the RBAC bootstrap policy", func(ctx context.Context) error {
		last = reconcileOnce(ctx, client, Data())
		return last
	})
	if err != nil {
		if last == nil {
			last = err
		}
		return fmt.Errorf("unable to initialize the RBAC bootstrap policy: %w", last)
	}
	return nil
}

// reconcileOnce is one pass of Reconcile over p.
func reconcileOnce(ctx context.Context, client kubernetes.Interface, p *Policy) error {
	rbac := client.RbacV1()
	if _, err := rbac.ClusterRoles().List(ctx, metav1.ListOptions{Limit: 1}); err != nil {
		return fmt.Errorf("listing clusterroles: %w", err)
	}
	if _, err := rbac.ClusterRoleBindings().List(ctx, metav1.ListOptions{Limit: 1}); err != nil {
		return fmt.Errorf("listing clusterrolebindings: %w", err)
	}
	if err := primeAggregatedClusterRoles(ctx, rbac, p.ClusterRolesToAggregate); err != nil {
		return fmt.Errorf("priming aggregated clusterroles: %w", err)
	}
	if err := primeSplitClusterRoleBindings(ctx, rbac, p.ClusterRoleBindingsToSplit, p.ClusterRoleBindings); err != nil {
		return fmt.Errorf("priming split clusterrolebindings: %w", err)
	}

	var errs []error
	roleClient := reconciliation.ClusterRoleModifier{Client: rbac.ClusterRoles()}
	for i := range p.ClusterRoles {
		r := &p.ClusterRoles[i]
		errs = append(errs, reconcileRole(ctx, "clusterrole", r.Name, reconciliation.ReconcileRoleOptions{
			Role: reconciliation.ClusterRoleRuleOwner{ClusterRole: r}, Client: roleClient, Confirm: true,
		}))
	}
	bindingClient := reconciliation.ClusterRoleBindingClientAdapter{Client: rbac.ClusterRoleBindings()}
	for i := range p.ClusterRoleBindings {
		b := &p.ClusterRoleBindings[i]
		errs = append(errs, reconcileBinding(ctx, "clusterrolebinding", b.Name, reconciliation.ReconcileRoleBindingOptions{
			RoleBinding: reconciliation.ClusterRoleBindingAdapter{ClusterRoleBinding: b}, Client: bindingClient, Confirm: true,
		}))
	}
	nsRoleClient := reconciliation.RoleModifier{Client: rbac, NamespaceClient: client.CoreV1().Namespaces()}
	for _, ns := range sortedKeys(p.NamespaceRoles) {
		for i := range p.NamespaceRoles[ns] {
			r := &p.NamespaceRoles[ns][i]
			errs = append(errs, reconcileRole(ctx, "role", ns+"/"+r.Name, reconciliation.ReconcileRoleOptions{
				Role: reconciliation.RoleRuleOwner{Role: r}, Client: nsRoleClient, Confirm: true,
			}))
		}
	}
	nsBindingClient := reconciliation.RoleBindingClientAdapter{Client: rbac, NamespaceClient: client.CoreV1().Namespaces()}
	for _, ns := range sortedKeys(p.NamespaceRoleBindings) {
		for i := range p.NamespaceRoleBindings[ns] {
			b := &p.NamespaceRoleBindings[ns][i]
			errs = append(errs, reconcileBinding(ctx, "rolebinding", ns+"/"+b.Name, reconciliation.ReconcileRoleBindingOptions{
				RoleBinding: reconciliation.RoleBindingAdapter{RoleBinding: b}, Client: nsBindingClient, Confirm: true,
			}))
		}
	}
	return errors.Join(errs...)
}

// reconcileRole runs one role's reconciliation and logs what it did.
func reconcileRole(ctx context.Context, kind, name string, opts reconciliation.ReconcileRoleOptions) error {
	return reconcileOne(ctx, kind, name, func() error {
		result, err := opts.Run()
		if err != nil {
			return err
		}
		switch {
		case result.Protected && result.Operation != reconciliation.ReconcileNone:
			klog.InfoS("Skipped reconcile-protected bootstrap RBAC object with missing permissions", "kind", kind, "name", name, "missingRules", result.MissingRules)
		case result.Operation == reconciliation.ReconcileUpdate:
			klog.V(2).InfoS("Updated bootstrap RBAC object with additional permissions", "kind", kind, "name", name, "missingRules", result.MissingRules)
		case result.Operation == reconciliation.ReconcileCreate:
			klog.V(2).InfoS("Created bootstrap RBAC object", "kind", kind, "name", name)
		}
		return nil
	})
}

// reconcileBinding runs one binding's reconciliation and logs what it did.
func reconcileBinding(ctx context.Context, kind, name string, opts reconciliation.ReconcileRoleBindingOptions) error {
	return reconcileOne(ctx, kind, name, func() error {
		result, err := opts.Run()
		if err != nil {
			return err
		}
		switch {
		case result.Protected && result.Operation != reconciliation.ReconcileNone:
			klog.InfoS("Skipped reconcile-protected bootstrap RBAC object with missing subjects", "kind", kind, "name", name, "missingSubjects", result.MissingSubjects)
		case result.Operation == reconciliation.ReconcileUpdate:
			klog.V(2).InfoS("Updated bootstrap RBAC object with additional subjects", "kind", kind, "name", name, "missingSubjects", result.MissingSubjects)
		case result.Operation == reconciliation.ReconcileCreate:
			klog.V(2).InfoS("Created bootstrap RBAC object", "kind", kind, "name", name)
		case result.Operation == reconciliation.ReconcileRecreate:
			klog.V(2).InfoS("Re-created bootstrap RBAC object with its roleRef", "kind", kind, "name", name)
		}
		return nil
	})
}

// reconcileOne runs one object's reconciliation, retried on what upstream
// retries (the library's requests carry no context: ctx is checked before
// it starts).
func reconcileOne(ctx context.Context, kind, name string, run func() error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := retry.OnError(retry.DefaultBackoff, conflictOrUnavailable, run); err != nil {
		return fmt.Errorf("reconciling %s %s: %w", kind, name, err)
	}
	return nil
}

// conflictOrUnavailable is what upstream retries per object: a concurrent
// write, or the API server blocked by storage version updates.
func conflictOrUnavailable(err error) bool {
	return apierrors.IsConflict(err) || apierrors.IsServiceUnavailable(err)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
