package role

import (
	"context"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/svcplane/svcplane/internal/registry/rbac/rbacutil"
	"github.com/svcplane/svcplane/internal/registry/resource"
)

// Definition returns the roles resource.
func Definition() *resource.Definition {
	return rbacutil.Role(&resource.Definition{
		Kind: "Role", Resource: "roles", Singular: "role", Namespaced: true,
		New:     func() runtime.Object { return &rbacv1.Role{} },
		NewList: func() runtime.Object { return &rbacv1.RoleList{} },
		Validate: func(ctx context.Context, obj runtime.Object) field.ErrorList {
			return Validate(obj.(*rbacv1.Role))
		},
	})
}

// Validate checks a Role beyond its object meta, as upstream's ValidateRole.
func Validate(r *rbacv1.Role) field.ErrorList {
	return rbacutil.ValidateRules(r.Rules, true)
}
