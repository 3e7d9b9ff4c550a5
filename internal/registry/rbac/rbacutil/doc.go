// Package rbacutil holds what the four rbac.authorization.k8s.io/v1 kinds
// share, as upstream's pkg/apis/rbac/validation, pkg/apis/rbac/v1 defaults
// and pkg/printers/internalversion do for them: the name rule (a path
// segment), the PolicyRule checks of Roles and ClusterRoles, the roleRef and
// subject checks and defaults of the bindings, and the bindings' table
// columns.
//
// The drift test in test/drift runs the same objects through upstream's
// validation and these functions and compares the field paths and types.
package rbacutil
