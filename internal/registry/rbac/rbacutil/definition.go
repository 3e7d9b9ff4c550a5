package rbacutil

import (
	"context"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/svcplane/svcplane/internal/registry/resource"
)

// Role completes the definition of a role kind (Role, ClusterRole) with
// what both share: the rbac/v1 group, path-segment names, create on
// update, the CREATED AT table.
func Role(d *resource.Definition) *resource.Definition {
	d.GroupVersion = rbacv1.SchemeGroupVersion
	d.NameValidation, d.AllowCreateOnUpdate = ValidateName, true
	d.Columns, d.Row = CreatedAtColumns, CreatedAtRow
	return d
}

// BindingParts reads a binding's roleRef and subjects.
type BindingParts func(obj runtime.Object) (*rbacv1.RoleRef, []rbacv1.Subject)

// Binding completes the definition of a binding kind (RoleBinding,
// ClusterRoleBinding) with what both share: Role's, the binding defaults,
// validate on create and update, roleRef immutable, and the ROLE/AGE
// (wide: USERS, GROUPS, SERVICEACCOUNTS) table; column is the kind's name
// in the columns' descriptions.
func Binding(d *resource.Definition, parts BindingParts, validate func(runtime.Object) field.ErrorList, column string) *resource.Definition {
	Role(d)
	d.Default = func(obj runtime.Object) {
		ref, subjects := parts(obj)
		DefaultBinding(ref, subjects)
	}
	d.Validate = func(_ context.Context, obj runtime.Object) field.ErrorList { return validate(obj) }
	d.ValidateUpdate = func(_ context.Context, obj, old runtime.Object) field.ErrorList {
		ref, _ := parts(obj)
		oldRef, _ := parts(old)
		return append(validate(obj), ValidateRoleRefUpdate(*ref, *oldRef)...)
	}
	d.Columns = BindingColumns(column)
	d.Row = func(obj runtime.Object) []interface{} {
		ref, subjects := parts(obj)
		return BindingRow(obj, *ref, subjects)
	}
	return d
}
