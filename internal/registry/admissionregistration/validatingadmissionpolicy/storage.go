package validatingadmissionpolicy

import (
	"context"

	v1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/svcplane/svcplane/internal/registry/admissionregistration/admregutil"
	"github.com/svcplane/svcplane/internal/registry/resource"
)

// Definition returns the validatingadmissionpolicies resource.
func Definition() *resource.Definition {
	return admregutil.Complete(&resource.Definition{
		Kind: "ValidatingAdmissionPolicy", Resource: "validatingadmissionpolicies", Singular: "validatingadmissionpolicy",
		New:     func() runtime.Object { return &v1.ValidatingAdmissionPolicy{} },
		NewList: func() runtime.Object { return &v1.ValidatingAdmissionPolicyList{} },
		Default: func(obj runtime.Object) {
			admregutil.DefaultValidatingAdmissionPolicy(obj.(*v1.ValidatingAdmissionPolicy))
		},
		Validate: func(_ context.Context, obj runtime.Object) field.ErrorList {
			return admregutil.ValidateValidatingAdmissionPolicy(obj.(*v1.ValidatingAdmissionPolicy))
		},
		ValidateUpdate: func(_ context.Context, obj, old runtime.Object) field.ErrorList {
			return admregutil.ValidateValidatingAdmissionPolicyUpdate(obj.(*v1.ValidatingAdmissionPolicy), old.(*v1.ValidatingAdmissionPolicy))
		},
		Status: &resource.StatusDefinition{
			ValidateUpdate: func(_ context.Context, obj, _ runtime.Object) field.ErrorList {
				return admregutil.ValidateValidatingAdmissionPolicyStatus(&obj.(*v1.ValidatingAdmissionPolicy).Status)
			},
		},
		Columns: admregutil.PolicyColumns("Validations", "Validations indicates the number of validation rules defined in this configuration"),
		Row: func(obj runtime.Object) []interface{} {
			p := obj.(*v1.ValidatingAdmissionPolicy)
			return []interface{}{int64(len(p.Spec.Validations)), admregutil.ParamKindCell(p.Spec.ParamKind), resource.AgeOf(obj)}
		},
	})
}
