package mutatingadmissionpolicybinding

import (
	"context"

	v1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/svcplane/svcplane/internal/registry/admissionregistration/admregutil"
	"github.com/svcplane/svcplane/internal/registry/resource"
)

// Definition returns the mutatingadmissionpolicybindings resource.
func Definition() *resource.Definition {
	return admregutil.Complete(&resource.Definition{
		Kind: "MutatingAdmissionPolicyBinding", Resource: "mutatingadmissionpolicybindings", Singular: "mutatingadmissionpolicybinding",
		New:     func() runtime.Object { return &v1.MutatingAdmissionPolicyBinding{} },
		NewList: func() runtime.Object { return &v1.MutatingAdmissionPolicyBindingList{} },
		Default: func(obj runtime.Object) {
			admregutil.DefaultMutatingAdmissionPolicyBinding(obj.(*v1.MutatingAdmissionPolicyBinding))
		},
		Validate: func(_ context.Context, obj runtime.Object) field.ErrorList {
			return admregutil.ValidateMutatingAdmissionPolicyBinding(obj.(*v1.MutatingAdmissionPolicyBinding))
		},
		Columns: admregutil.BindingColumns,
		Row: func(obj runtime.Object) []interface{} {
			b := obj.(*v1.MutatingAdmissionPolicyBinding)
			return []interface{}{b.Spec.PolicyName, admregutil.ParamRefCell(b.Spec.ParamRef), resource.AgeOf(obj)}
		},
	})
}
