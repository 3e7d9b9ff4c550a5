package rbacutil

import (
	"strings"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	rbacv1beta1 "k8s.io/api/rbac/v1beta1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/svcplane/svcplane/internal/registry/resource"
)

// CreatedAtColumns are the columns of Roles and ClusterRoles: upstream has
// no printer for them and serves apiserver's default table (NAME,
// CREATED AT as an RFC 3339 UTC time).
var CreatedAtColumns = []metav1.TableColumnDefinition{
	{Name: "Created At", Type: "date", Description: metav1.ObjectMeta{}.SwaggerDoc()["creationTimestamp"]},
}

// CreatedAtRow is the row of CreatedAtColumns.
func CreatedAtRow(obj runtime.Object) []interface{} {
	m, err := meta.Accessor(obj)
	if err != nil {
		return []interface{}{""}
	}
	return []interface{}{m.GetCreationTimestamp().Time.UTC().Format(time.RFC3339)}
}

// BindingColumns are the columns kube-apiserver prints for RoleBindings
// (kind "roleBinding") and ClusterRoleBindings ("clusterRoleBinding"):
// ROLE, AGE, and with -o wide USERS, GROUPS, SERVICEACCOUNTS.
func BindingColumns(kind string) []metav1.TableColumnDefinition {
	roleDoc := rbacv1beta1.RoleBinding{}.SwaggerDoc()["roleRef"]
	if kind == "clusterRoleBinding" {
		roleDoc = rbacv1beta1.ClusterRoleBinding{}.SwaggerDoc()["roleRef"]
	}
	return []metav1.TableColumnDefinition{
		resource.Column("Role", "string", 0, roleDoc),
		resource.Column("Age", "string", 0, metav1.ObjectMeta{}.SwaggerDoc()["creationTimestamp"]),
		resource.Column("Users", "string", 1, "Users in the "+kind),
		resource.Column("Groups", "string", 1, "Groups in the "+kind),
		resource.Column("ServiceAccounts", "string", 1, "ServiceAccounts in the "+kind),
	}
}

// BindingRow is the row of BindingColumns: the role as "Kind/name", the
// age, and the subjects by kind (service accounts as "namespace/name").
func BindingRow(obj runtime.Object, ref rbacv1.RoleRef, subjects []rbacv1.Subject) []interface{} {
	users, groups, sas := []string{}, []string{}, []string{}
	for _, s := range subjects {
		switch s.Kind {
		case rbacv1.ServiceAccountKind:
			sas = append(sas, s.Namespace+"/"+s.Name)
		case rbacv1.UserKind:
			users = append(users, s.Name)
		case rbacv1.GroupKind:
			groups = append(groups, s.Name)
		}
	}
	return []interface{}{ref.Kind + "/" + ref.Name, resource.AgeOf(obj),
		strings.Join(users, ", "), strings.Join(groups, ", "), strings.Join(sas, ", ")}
}
