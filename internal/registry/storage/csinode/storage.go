package csinode

import (
	"context"

	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/svcplane/svcplane/internal/registry/resource"
)

// Definition returns the csinodes resource.
func Definition() *resource.Definition {
	return &resource.Definition{
		GroupVersion: storagev1.SchemeGroupVersion, Kind: "CSINode",
		Resource: "csinodes", Singular: "csinode",
		New:     func() runtime.Object { return &storagev1.CSINode{} },
		NewList: func() runtime.Object { return &storagev1.CSINodeList{} },
		Validate: func(ctx context.Context, obj runtime.Object) field.ErrorList {
			return ValidateSpec(&obj.(*storagev1.CSINode).Spec, field.NewPath("spec"))
		},
		// Upstream's ValidateCSINodeUpdate: the new object as on create
		// (no metadata transition check of its own) and the drivers.
		UpdateMeta: resource.UpdateMetaNew,
		ValidateUpdate: func(ctx context.Context, obj, old runtime.Object) field.ErrorList {
			n, o := obj.(*storagev1.CSINode), old.(*storagev1.CSINode)
			return append(ValidateSpec(&n.Spec, field.NewPath("spec")), ValidateUpdate(n, o)...)
		},
		DisallowUnconditionalUpdate: true,
		Columns: []metav1.TableColumnDefinition{
			resource.Column("Drivers", "integer", 0, "Drivers indicates the number of CSI drivers registered on the node"),
			resource.AgeColumn,
		},
		Row: func(obj runtime.Object) []interface{} {
			return []interface{}{int64(len(obj.(*storagev1.CSINode).Spec.Drivers)), resource.AgeOf(obj)}
		},
	}
}
