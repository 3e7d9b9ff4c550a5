// Package clusterrolebinding defines the rbac.authorization.k8s.io/v1
// clusterrolebindings resource as kube-apiserver serves it
// (pkg/registry/rbac/clusterrolebinding): defaults as upstream's rbac/v1,
// validation as ValidateClusterRoleBinding (roleRef to a ClusterRole only;
// a ServiceAccount subject must name its namespace) and roleRef fixed once
// created ("cannot change roleRef"), create on update, unconditional
// updates, no status, and kube-apiserver's columns: ROLE, AGE; wide USERS,
// GROUPS, SERVICEACCOUNTS.
//
// The storage is the plain generic store; escalation prevention wraps it
// elsewhere.
package clusterrolebinding
