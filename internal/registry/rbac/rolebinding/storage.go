package rolebinding

import (
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/svcplane/svcplane/internal/registry/rbac/rbacutil"
	"github.com/svcplane/svcplane/internal/registry/resource"
)

// Definition returns the rolebindings resource.
func Definition() *resource.Definition {
	return rbacutil.Binding(&resource.Definition{
		Kind: "RoleBinding", Resource: "rolebindings", Singular: "rolebinding", Namespaced: true,
		New:     func() runtime.Object { return &rbacv1.RoleBinding{} },
		NewList: func() runtime.Object { return &rbacv1.RoleBindingList{} },
	}, func(obj runtime.Object) (*rbacv1.RoleRef, []rbacv1.Subject) {
		b := obj.(*rbacv1.RoleBinding)
		return &b.RoleRef, b.Subjects
	}, func(obj runtime.Object) field.ErrorList { return Validate(obj.(*rbacv1.RoleBinding)) }, "roleBinding")
}

// Validate checks a RoleBinding beyond its object meta, as upstream's
// ValidateRoleBinding.
func Validate(b *rbacv1.RoleBinding) field.ErrorList {
	return append(rbacutil.ValidateRoleRef(b.RoleRef, "Role", "ClusterRole"), rbacutil.ValidateSubjects(b.Subjects, true)...)
}
