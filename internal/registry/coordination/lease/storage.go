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
		Validate: func(ctx context.Context, obj runtime.Object) field.ErrorList {
			s := &obj.(*coordinationv1.Lease).Spec
			var errs field.ErrorList
			if s.LeaseDurationSeconds != nil && *s.LeaseDurationSeconds <= 0 {
				errs = append(errs, field.Invalid(field.NewPath("spec", "leaseDurationSeconds"), *s.LeaseDurationSeconds, "must be greater than 0"))
			}
			if s.LeaseTransitions != nil && *s.LeaseTransitions < 0 {
				errs = append(errs, field.Invalid(field.NewPath("spec", "leaseTransitions"), *s.LeaseTransitions, "must be greater than or equal to 0"))
			}
			return errs
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
