package clusterrolebinding

import (
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/svcplane/svcplane/internal/registry/rbac/rbacutil"
	"github.com/svcplane/svcplane/internal/registry/resource"
)

// Definition returns the clusterrolebindings resource.
func Definition() *resource.Definition {
	return rbacutil.Binding(&resource.Definition{
		Kind: "ClusterRoleBinding", Resource: "clusterrolebindings", Singular: "clusterrolebinding",
		New:     func() runtime.Object { return &rbacv1.ClusterRoleBinding{} },
		NewList: func() runtime.Object { return &rbacv1.ClusterRoleBindingList{} },
	}, func(obj runtime.Object) (*rbacv1.RoleRef, []rbacv1.Subject) {
		b := obj.(*rbacv1.ClusterRoleBinding)
		return &b.RoleRef, b.Subjects
	}, func(obj runtime.Object) field.ErrorList { return Validate(obj.(*rbacv1.ClusterRoleBinding)) }, "clusterRoleBinding")
}

// Validate checks a ClusterRoleBinding beyond its object meta, as upstream's
// ValidateClusterRoleBinding.
func Validate(b *rbacv1.ClusterRoleBinding) field.ErrorList {
	return append(rbacutil.ValidateRoleRef(b.RoleRef, "ClusterRole"), rbacutil.ValidateSubjects(b.Subjects, false)...)
}
