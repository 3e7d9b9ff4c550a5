package rbacutil

import rbacv1 "k8s.io/api/rbac/v1"

// DefaultBinding fills in a binding's defaults as upstream's rbac/v1
// SetDefaults_RoleBinding, SetDefaults_ClusterRoleBinding and
// SetDefaults_Subject: an empty roleRef.apiGroup is rbac.authorization.k8s.io,
// and so is an empty apiGroup of a User or Group subject (a ServiceAccount's
// stays "", the core group).
func DefaultBinding(ref *rbacv1.RoleRef, subjects []rbacv1.Subject) {
	if ref.APIGroup == "" {
		ref.APIGroup = rbacv1.GroupName
	}
	for i := range subjects {
		s := &subjects[i]
		if s.APIGroup == "" && (s.Kind == rbacv1.UserKind || s.Kind == rbacv1.GroupKind) {
			s.APIGroup = rbacv1.GroupName
		}
	}
}
