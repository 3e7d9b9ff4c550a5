package bootstrappolicy

import (
	"context"
	"slices"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	rbacv1client "k8s.io/client-go/kubernetes/typed/rbac/v1"
	"k8s.io/klog/v2"
)

// The two priming steps of upstream's hook migrate clusters made by older
// Kubernetes versions (1.9 made admin, edit and view aggregated; 1.14
// split system:public-info-viewer off system:discovery). A fresh svcplane
// cluster has neither old object and they do nothing; they matter for an
// etcd (or a backup) that an upstream cluster of those days wrote, so they
// are kept, as upstream 1.36 keeps them.

// primeAggregatedClusterRoles copies a role that became aggregated (admin,
// edit, view) to the role it now aggregates (system:aggregate-to-admin, …)
// when the latter does not exist yet and the former is not aggregated yet,
// so that rules a cluster admin added to the old role survive its becoming
// aggregated.
//
// Upstream stops at the first old role found already aggregated (a return
// where a continue was meant: which roles it then skips depends on map
// order); this goes on with the others.
func primeAggregatedClusterRoles(ctx context.Context, client rbacv1client.ClusterRolesGetter, toAggregate map[string]string) error {
	for _, oldName := range sortedKeys(toAggregate) {
		newName := toAggregate[oldName]
		_, err := client.ClusterRoles().Get(ctx, newName, metav1.GetOptions{})
		if err == nil {
			continue
		}
		if !apierrors.IsNotFound(err) {
			return err
		}
		existing, err := client.ClusterRoles().Get(ctx, oldName, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			continue
		}
		if err != nil {
			return err
		}
		if existing.AggregationRule != nil {
			continue // already aggregated: no custom rules left to migrate
		}
		klog.V(1).InfoS("Migrating ClusterRole to the role it aggregates", "from", existing.Name, "to", newName)
		existing.Name = newName
		existing.ResourceVersion = ""
		existing.UID = ""
		if _, err := client.ClusterRoles().Create(ctx, existing, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return err
		}
	}
	return nil
}

// primeSplitClusterRoleBindings creates each bootstrap ClusterRoleBinding
// named in toSplit's values that does not exist yet while the binding it
// was split from does, with the latter's subjects, labels and annotations,
// so that a cluster admin's changes to the old binding carry over.
func primeSplitClusterRoleBindings(ctx context.Context, client rbacv1client.ClusterRoleBindingsGetter, toSplit map[string]string, bindings []rbacv1.ClusterRoleBinding) error {
	for _, from := range sortedKeys(toSplit) {
		i := slices.IndexFunc(bindings, func(b rbacv1.ClusterRoleBinding) bool { return b.Name == toSplit[from] })
		if i < 0 {
			continue // the data's drift test guarantees the template exists
		}
		existing, err := client.ClusterRoleBindings().Get(ctx, from, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			continue
		}
		if err != nil {
			return err
		}
		_, err = client.ClusterRoleBindings().Get(ctx, bindings[i].Name, metav1.GetOptions{})
		if err == nil {
			continue
		}
		if !apierrors.IsNotFound(err) {
			return err
		}
		klog.V(1).InfoS("Copying subjects, labels and annotations to a split ClusterRoleBinding", "from", from, "to", bindings[i].Name)
		split := bindings[i].DeepCopy()
		split.Subjects = existing.Subjects
		split.Labels = existing.Labels
		split.Annotations = existing.Annotations
		if _, err := client.ClusterRoleBindings().Create(ctx, split, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return err
		}
	}
	return nil
}
