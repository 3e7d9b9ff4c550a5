package informerutil

import (
	"k8s.io/apimachinery/pkg/api/meta"
)

// DropManagedFields is a cache.TransformFunc that clears an object's
// metadata.managedFields (typed objects and metadata-only objects alike);
// anything without metadata passes unchanged.
func DropManagedFields(obj any) (any, error) {
	if m, err := meta.Accessor(obj); err == nil && m.GetManagedFields() != nil {
		m.SetManagedFields(nil)
	}
	return obj, nil
}
