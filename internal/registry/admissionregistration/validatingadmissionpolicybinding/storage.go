package validatingadmissionpolicybinding

import (
	"context"

	v1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/svcplane/svcplane/internal/registry/admissionregistration/admregutil"
	"github.com/svcplane/svcplane/internal/registry/resource"
)

// Definition returns the validatingadmissionpolicybindings resource.
func Definition() *resource.Definition {
	return admregutil.Complete(&resource.Definition{
		Kind: "ValidatingAdmissionPolicyBinding", Resource: "validatingadmissionpolicybindings", Singular: "validatingadmissionpolicybinding",
		New:     func() runtime.Object { return &v1.ValidatingAdmissionPolicyBinding{} },
		NewList: func() runtime.Object { return &v1.ValidatingAdmissionPolicyBindingList{} },
		Default: func(obj runtime.Object) {
			admregutil.DefaultValidatingAdmissionPolicyBinding(obj.(*v1.ValidatingAdmissionPolicyBinding))
		},
		Validate: func(_ context.Context, obj runtime.Object) field.ErrorList {
			return admregutil.ValidateValidatingAdmissionPolicyBinding(obj.(*v1.ValidatingAdmissionPolicyBinding))
		},
		Columns: admregutil.BindingColumns,
		Row: func(obj runtime.Object) []interface{} {
			b := obj.(*v1.ValidatingAdmissionPolicyBinding)
			return []interface{}{b.Spec.PolicyName, admregutil.ParamRefCell(b.Spec.ParamRef), resource.AgeOf(obj)}
		},
	})
}
