// Package rbac is svcplane's RBAC authorizer: the rules of the Roles and
// ClusterRoles bound to a user (by RoleBindings in the request's namespace
// and by ClusterRoleBindings) decide a request, as kube-apiserver's
// --authorization-mode=RBAC does. It also holds the escalation checks of the
// RBAC API (you may grant only what you hold, unless you may "escalate" a
// role or "bind" its reference) and the storage wrapper that applies them.
//
// The semantics are upstream's (plugin/pkg/auth/authorizer/rbac and
// pkg/registry/rbac in k8s.io/kubernetes, which the main module does not
// import); test/drift compares this package's decisions, rule lists and
// escalation errors with upstream's on the same objects.
package rbac
