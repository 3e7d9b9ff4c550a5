// Package clusterrole defines the rbac.authorization.k8s.io/v1 clusterroles
// resource as kube-apiserver serves it (pkg/registry/rbac/clusterrole):
// validation as upstream's ValidateClusterRole (path segment names, the
// rules, non-resource URLs allowed; an aggregationRule needs at least one
// valid clusterRoleSelector), create on update, unconditional updates, no
// status, the default NAME / CREATED AT table.
//
// On update the value check of the selectors' matchExpressions is skipped
// when the stored object already failed it (upstream's
// AllowInvalidLabelValueInSelector); as upstream, such a selector must
// still parse, so it is refused all the same ("invalid label selector.").
//
// The storage is the plain generic store; escalation prevention wraps it
// elsewhere.
package clusterrole
