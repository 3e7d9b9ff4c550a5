// Package rolebinding defines the rbac.authorization.k8s.io/v1 rolebindings
// resource as kube-apiserver serves it (pkg/registry/rbac/rolebinding):
// defaults as upstream's rbac/v1 (roleRef and User/Group subjects get the
// rbac.authorization.k8s.io apiGroup), validation as ValidateRoleBinding
// (roleRef to a Role or ClusterRole of rbac.authorization.k8s.io; subjects
// are ServiceAccounts, Users or Groups) and roleRef fixed once created
// ("cannot change roleRef"), create on update, unconditional updates, no
// status, and kube-apiserver's columns: ROLE, AGE; wide USERS, GROUPS,
// SERVICEACCOUNTS.
//
// The storage is the plain generic store; escalation prevention wraps it
// elsewhere.
package rolebinding
