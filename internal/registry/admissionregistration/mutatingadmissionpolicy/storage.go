package mutatingadmissionpolicy

import (
	"context"

	v1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/svcplane/svcplane/internal/registry/admissionregistration/admregutil"
	"github.com/svcplane/svcplane/internal/registry/resource"
)

// Definition returns the mutatingadmissionpolicies resource.
func Definition() *resource.Definition {
	return admregutil.Complete(&resource.Definition{
		Kind: "MutatingAdmissionPolicy", Resource: "mutatingadmissionpolicies", Singular: "mutatingadmissionpolicy",
		New:     func() runtime.Object { return &v1.MutatingAdmissionPolicy{} },
		NewList: func() runtime.Object { return &v1.MutatingAdmissionPolicyList{} },
		Default: func(obj runtime.Object) { admregutil.DefaultMutatingAdmissionPolicy(obj.(*v1.MutatingAdmissionPolicy)) },
		Validate: func(_ context.Context, obj runtime.Object) field.ErrorList {
			return admregutil.ValidateMutatingAdmissionPolicy(obj.(*v1.MutatingAdmissionPolicy))
		},
		ValidateUpdate: func(_ context.Context, obj, old runtime.Object) field.ErrorList {
			return admregutil.ValidateMutatingAdmissionPolicyUpdate(obj.(*v1.MutatingAdmissionPolicy), old.(*v1.MutatingAdmissionPolicy))
		},
		Columns: admregutil.PolicyColumns("Mutations", "Mutation indicates the number of mutations rules defined in this configuration"),
		Row: func(obj runtime.Object) []interface{} {
			p := obj.(*v1.MutatingAdmissionPolicy)
			return []interface{}{int64(len(p.Spec.Mutations)), admregutil.ParamKindCell(p.Spec.ParamKind), resource.AgeOf(obj)}
		},
	})
}
