// Package role defines the rbac.authorization.k8s.io/v1 roles resource as
// kube-apiserver serves it (pkg/registry/rbac/role): validation as upstream's
// ValidateRole (path segment names, every rule has verbs, and resources with
// API groups, never non-resource URLs), create on update, unconditional
// updates, no status, the default NAME / CREATED AT table.
//
// The storage is the plain generic store; escalation prevention (a user may
// only grant what they hold) wraps it elsewhere.
package role
