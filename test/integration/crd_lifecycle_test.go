package integration

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/svcplane/svcplane/internal/testutil"
)

const gizmosCRD = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gizmos.lifecycle.it.example.com
spec:
  group: lifecycle.it.example.com
  names: {plural: gizmos, singular: gizmo, kind: Gizmo, listKind: GizmoList}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        x-kubernetes-preserve-unknown-fields: true
`

var gizmosGVR = schema.GroupVersionResource{Group: "lifecycle.it.example.com", Version: "v1", Resource: "gizmos"}

func gizmo(name string, owners ...metav1.OwnerReference) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]interface{}{
		"apiVersion": "lifecycle.it.example.com/v1", "kind": "Gizmo", "metadata": map[string]interface{}{"name": name},
	}}
	u.SetOwnerReferences(owners)
	return u
}

// TestCustomResourceLifecycle: custom resources go with what they belong
// to — the garbage collector deletes one whose owner (a ConfigMap) is
// deleted (it starts monitoring the new resource within its 30 s
// rediscovery), the namespace controller empties a deleted namespace of
// them, and deleting the CRD deletes them all and takes the group out of
// discovery.
func TestCustomResourceLifecycle(t *testing.T) {
	skipShort(t)
	c := server.Client
	gcNS := newNamespace(t, c)
	// The garbage collector runs (has done its first discovery) before the
	// CRD exists: it has to find gizmos by rediscovering.
	waitForGarbageCollector(t, gcNS)
	createCRD(t, decodeCRD(t, gizmosCRD))
	dyn := crdDynamicClient(t, nil)

	// Garbage collection: a Gizmo owned by a ConfigMap.
	owner := get(c.CoreV1().ConfigMaps(gcNS).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "owner"}}, metav1.CreateOptions{}))(t)
	get(dyn.Resource(gizmosGVR).Namespace(gcNS).Create(ctx, gizmo("owned",
		metav1.OwnerReference{APIVersion: "v1", Kind: "ConfigMap", Name: owner.Name, UID: owner.UID}), metav1.CreateOptions{}))(t)
	get(dyn.Resource(gizmosGVR).Namespace(gcNS).Create(ctx, gizmo("unowned"), metav1.CreateOptions{}))(t)
	noErr(t, c.CoreV1().ConfigMaps(gcNS).Delete(ctx, owner.Name, metav1.DeleteOptions{}))
	start := time.Now()
	testutil.Eventually(t, 75*time.Second, "the garbage collector to delete the Gizmo whose ConfigMap went", func() bool {
		_, err := dyn.Resource(gizmosGVR).Namespace(gcNS).Get(ctx, "owned", metav1.GetOptions{})
		return apierrors.IsNotFound(err)
	})
	t.Logf("owned Gizmo collected %v after its owner's deletion", time.Since(start).Round(time.Second))
	get(dyn.Resource(gizmosGVR).Namespace(gcNS).Get(ctx, "unowned", metav1.GetOptions{}))(t)

	// And the other way: a ConfigMap owned by a Gizmo goes with it
	// (foreground: the Gizmo waits for it).
	parent := get(dyn.Resource(gizmosGVR).Namespace(gcNS).Create(ctx, gizmo("parent"), metav1.CreateOptions{}))(t)
	block := true
	get(c.CoreV1().ConfigMaps(gcNS).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "child",
		OwnerReferences: []metav1.OwnerReference{{APIVersion: "lifecycle.it.example.com/v1", Kind: "Gizmo", Name: "parent",
			UID: parent.GetUID(), BlockOwnerDeletion: &block}}}}, metav1.CreateOptions{}))(t)
	foreground := metav1.DeletePropagationForeground
	noErr(t, dyn.Resource(gizmosGVR).Namespace(gcNS).Delete(ctx, "parent", metav1.DeleteOptions{PropagationPolicy: &foreground}))
	testutil.Eventually(t, 30*time.Second, "the Gizmo's ConfigMap, then the Gizmo, deleted", func() bool {
		_, errChild := c.CoreV1().ConfigMaps(gcNS).Get(ctx, "child", metav1.GetOptions{})
		_, errParent := dyn.Resource(gizmosGVR).Namespace(gcNS).Get(ctx, "parent", metav1.GetOptions{})
		return apierrors.IsNotFound(errChild) && apierrors.IsNotFound(errParent)
	})

	// Namespace deletion.
	nsDel := newNamespace(t, c)
	for _, name := range []string{"a", "b"} {
		get(dyn.Resource(gizmosGVR).Namespace(nsDel).Create(ctx, gizmo(name), metav1.CreateOptions{}))(t)
	}
	noErr(t, c.CoreV1().Namespaces().Delete(ctx, nsDel, metav1.DeleteOptions{}))
	testutil.Eventually(t, 60*time.Second, "the deleted namespace emptied of Gizmos and gone", func() bool {
		_, err := c.CoreV1().Namespaces().Get(ctx, nsDel, metav1.GetOptions{})
		return apierrors.IsNotFound(err)
	})
	list := get(dyn.Resource(gizmosGVR).Namespace(nsDel).List(ctx, metav1.ListOptions{}))(t)
	if len(list.Items) != 0 {
		t.Fatalf("%d Gizmos left in the deleted namespace", len(list.Items))
	}

	// Deleting the CRD deletes its custom resources, then itself.
	crds := crdClient(t).ApiextensionsV1().CustomResourceDefinitions()
	noErr(t, crds.Delete(ctx, "gizmos.lifecycle.it.example.com", metav1.DeleteOptions{}))
	testutil.Eventually(t, 60*time.Second, "the CRD (after its Gizmos) gone", func() bool {
		_, err := crds.Get(ctx, "gizmos.lifecycle.it.example.com", metav1.GetOptions{})
		return apierrors.IsNotFound(err)
	})
	testutil.Eventually(t, 10*time.Second, "the group out of discovery", func() bool {
		return !inAggregatedDiscovery(t, gizmosGVR) && !inLegacyGroupList(t, gizmosGVR.GroupVersion())
	})
	// A CRD of the same name again: the old objects do not come back.
	createCRD(t, decodeCRD(t, gizmosCRD))
	list = get(dyn.Resource(gizmosGVR).Namespace(gcNS).List(ctx, metav1.ListOptions{}))(t)
	if len(list.Items) != 0 {
		t.Fatalf("%d Gizmos outlived their CRD", len(list.Items))
	}
}

// waitForGarbageCollector waits until the garbage collector deletes a
// ConfigMap whose owner is gone.
func waitForGarbageCollector(t *testing.T, ns string) {
	t.Helper()
	cms := server.Client.CoreV1().ConfigMaps(ns)
	get(cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "gc-probe", OwnerReferences: []metav1.OwnerReference{
		{APIVersion: "v1", Kind: "ConfigMap", Name: "nobody", UID: "00000000-0000-0000-0000-000000000002"}}}}, metav1.CreateOptions{}))(t)
	testutil.Eventually(t, 60*time.Second, "the garbage collector at work", func() bool {
		_, err := cms.Get(ctx, "gc-probe", metav1.GetOptions{})
		return apierrors.IsNotFound(err)
	})
}
