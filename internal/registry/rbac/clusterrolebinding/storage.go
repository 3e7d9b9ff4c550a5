package clusterrolebinding

import (
	"context"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/svcplane/svcplane/internal/registry/rbac/rbacutil"
	"github.com/svcplane/svcplane/internal/registry/resource"
)

// Definition returns the clusterrolebindings resource.
func Definition() *resource.Definition {
	return &resource.Definition{
		GroupVersion: rbacv1.SchemeGroupVersion, Kind: "ClusterRoleBinding",
		Resource: "clusterrolebindings", Singular: "clusterrolebinding",
		New:                 func() runtime.Object { return &rbacv1.ClusterRoleBinding{} },
		NewList:             func() runtime.Object { return &rbacv1.ClusterRoleBindingList{} },
		NameValidation:      rbacutil.ValidateName,
		AllowCreateOnUpdate: true,
		Default: func(obj runtime.Object) {
			b := obj.(*rbacv1.ClusterRoleBinding)
			rbacutil.DefaultBinding(&b.RoleRef, b.Subjects)
		},
		Validate: func(ctx context.Context, obj runtime.Object) field.ErrorList {
			return Validate(obj.(*rbacv1.ClusterRoleBinding))
		},
		ValidateUpdate: func(ctx context.Context, obj, old runtime.Object) field.ErrorList {
			b := obj.(*rbacv1.ClusterRoleBinding)
			return append(Validate(b), rbacutil.ValidateRoleRefUpdate(b.RoleRef, old.(*rbacv1.ClusterRoleBinding).RoleRef)...)
		},
		Columns: rbacutil.BindingColumns("clusterRoleBinding"),
		Row: func(obj runtime.Object) []interface{} {
			b := obj.(*rbacv1.ClusterRoleBinding)
			return rbacutil.BindingRow(obj, b.RoleRef, b.Subjects)
		},
	}
}

// Validate checks a ClusterRoleBinding beyond its object meta, as upstream's
// ValidateClusterRoleBinding.
func Validate(b *rbacv1.ClusterRoleBinding) field.ErrorList {
	return append(rbacutil.ValidateRoleRef(b.RoleRef, "ClusterRole"), rbacutil.ValidateSubjects(b.Subjects, false)...)
}
