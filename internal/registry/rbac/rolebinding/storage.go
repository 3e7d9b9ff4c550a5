package rolebinding

import (
	"context"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/svcplane/svcplane/internal/registry/rbac/rbacutil"
	"github.com/svcplane/svcplane/internal/registry/resource"
)

// Definition returns the rolebindings resource.
func Definition() *resource.Definition {
	return &resource.Definition{
		GroupVersion: rbacv1.SchemeGroupVersion, Kind: "RoleBinding",
		Resource: "rolebindings", Singular: "rolebinding", Namespaced: true,
		New:                 func() runtime.Object { return &rbacv1.RoleBinding{} },
		NewList:             func() runtime.Object { return &rbacv1.RoleBindingList{} },
		NameValidation:      rbacutil.ValidateName,
		AllowCreateOnUpdate: true,
		Default: func(obj runtime.Object) {
			b := obj.(*rbacv1.RoleBinding)
			rbacutil.DefaultBinding(&b.RoleRef, b.Subjects)
		},
		Validate: func(ctx context.Context, obj runtime.Object) field.ErrorList {
			return Validate(obj.(*rbacv1.RoleBinding))
		},
		ValidateUpdate: func(ctx context.Context, obj, old runtime.Object) field.ErrorList {
			b := obj.(*rbacv1.RoleBinding)
			return append(Validate(b), rbacutil.ValidateRoleRefUpdate(b.RoleRef, old.(*rbacv1.RoleBinding).RoleRef)...)
		},
		Columns: rbacutil.BindingColumns("roleBinding"),
		Row: func(obj runtime.Object) []interface{} {
			b := obj.(*rbacv1.RoleBinding)
			return rbacutil.BindingRow(obj, b.RoleRef, b.Subjects)
		},
	}
}

// Validate checks a RoleBinding beyond its object meta, as upstream's
// ValidateRoleBinding.
func Validate(b *rbacv1.RoleBinding) field.ErrorList {
	return append(rbacutil.ValidateRoleRef(b.RoleRef, "Role", "ClusterRole"), rbacutil.ValidateSubjects(b.Subjects, true)...)
}
