package informerutil

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
)

func TestDropManagedFields(t *testing.T) {
	mf := []metav1.ManagedFieldsEntry{{Manager: "kubectl", Operation: metav1.ManagedFieldsOperationApply}}
	for _, obj := range []any{
		&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", ManagedFields: mf}},
		&metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Name: "m", ManagedFields: mf}},
	} {
		out, err := DropManagedFields(obj)
		if err != nil {
			t.Fatal(err)
		}
		m := out.(metav1.Object)
		if m.GetManagedFields() != nil || m.GetName() == "" {
			t.Errorf("%T after the transform: name %q managedFields %v", out, m.GetName(), m.GetManagedFields())
		}
	}
	// A tombstone (no metadata) passes as it is.
	tomb := cache.DeletedFinalStateUnknown{Key: "ns/p"}
	if out, err := DropManagedFields(tomb); err != nil || out != any(tomb) {
		t.Errorf("tombstone: %v %v", out, err)
	}
}
