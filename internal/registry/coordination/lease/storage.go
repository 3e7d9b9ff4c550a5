package lease

import (
	"context"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/svcplane/svcplane/internal/registry/resource"
)

// Definition returns the leases resource.
func Definition() *resource.Definition {
	return &resource.Definition{
		GroupVersion: coordinationv1.SchemeGroupVersion, Kind: "Lease",
		Resource: "leases", Singular: "lease", Namespaced: true,
		New:     func() runtime.Object { return &coordinationv1.Lease{} },
		NewList: func() runtime.Object { return &coordinationv1.LeaseList{} },
		// The CoordinatedLeaderElection gate is off (upstream's default):
		// strategy and preferredHolder are dropped unless already stored.
		PrepareForCreate: func(ctx context.Context, obj runtime.Object) {
			s := &obj.(*coordinationv1.Lease).Spec
			s.Strategy, s.PreferredHolder = nil, nil
		},
		PrepareForUpdate: func(ctx context.Context, obj, old runtime.Object) {
			s, o := &obj.(*coordinationv1.Lease).Spec, &old.(*coordinationv1.Lease).Spec
			if o.Strategy == nil {
				s.Strategy = nil
			}
			if o.PreferredHolder == nil {
				s.PreferredHolder = nil
			}
		},
		MetaValidation: resource.MetaGeneric,
		UpdateMeta:     resource.UpdateMetaTransition,
		Validate: func(ctx context.Context, obj runtime.Object) field.ErrorList {
			return validateSpec(&obj.(*coordinationv1.Lease).Spec, field.NewPath("spec"))
		},
		Columns: []metav1.TableColumnDefinition{
			resource.Column("Holder", "string", 0, "holderIdentity contains the identity of the holder of a current lease."),
			resource.AgeColumn,
		},
		Row: func(obj runtime.Object) []interface{} {
			holder := "<unknown>"
			if h := obj.(*coordinationv1.Lease).Spec.HolderIdentity; h != nil {
				holder = *h
			}
			return []interface{}{holder, resource.AgeOf(obj)}
		},
	}
}
