package integration

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// TestGarbageCollector deletes an owner ConfigMap with each propagation
// policy and checks its dependent ConfigMap: background → deleted; orphan →
// kept without the ownerReference; foreground → deleted first, the owner
// goes after.
func TestGarbageCollector(t *testing.T) {
	skipShort(t)
	c := server.Client
	ns := newNamespace(t, c)
	cms := c.CoreV1().ConfigMaps(ns)
	pair := func(owner string) (types.UID, string) {
		o := get(cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: owner}}, metav1.CreateOptions{}))(t)
		yes := true
		get(cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: owner + "-dep",
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: owner, UID: o.UID, BlockOwnerDeletion: &yes}}}},
			metav1.CreateOptions{}))(t)
		return o.UID, owner + "-dep"
	}
	gone := func(name string) bool {
		_, err := cms.Get(ctx, name, metav1.GetOptions{})
		return apierrors.IsNotFound(err)
	}
	for _, policy := range []metav1.DeletionPropagation{metav1.DeletePropagationBackground, metav1.DeletePropagationOrphan, metav1.DeletePropagationForeground} {
		owner := "owner-" + strings.ToLower(string(policy))
		_, dep := pair(owner)
		noErr(t, cms.Delete(ctx, owner, metav1.DeleteOptions{PropagationPolicy: &policy}))
		switch policy {
		case metav1.DeletePropagationOrphan:
			eventually(t, "the orphaned dependent to lose its ownerReference", func() bool {
				d, err := cms.Get(ctx, dep, metav1.GetOptions{})
				return err == nil && len(d.OwnerReferences) == 0 && gone(owner)
			})
		default:
			eventually(t, string(policy)+" deletion of owner and dependent", func() bool { return gone(owner) && gone(dep) })
		}
	}
	// A dependent whose owner never existed (dangling) is collected too.
	get(cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "dangling",
		OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: "nobody", UID: "00000000-0000-0000-0000-000000000001"}}}},
		metav1.CreateOptions{}))(t)
	eventually(t, "the dangling dependent to go", func() bool { return gone("dangling") })
}
