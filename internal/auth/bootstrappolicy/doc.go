// Package bootstrappolicy is the RBAC bootstrap policy kube-apiserver
// creates at start (the ClusterRoles, ClusterRoleBindings, Roles and
// RoleBindings every Kubernetes cluster has) and the reconciliation that
// keeps it in place, as kube-apiserver's "rbac/bootstrap-roles"
// post-start hook does.
//
// # Data
//
// The policy is data, not code: policy.yaml, embedded in the binary, holds
// the objects of k8s.io/kubernetes v1.36.3's
// plugin/pkg/auth/authorizer/rbac/bootstrappolicy exactly as the hook
// reconciles them: ClusterRoles() then ControllerRoles()
// (system:controller:*), ClusterRoleBindings() then
// ControllerRoleBindings(), NamespaceRoles() and NamespaceRoleBindings()
// (kube-system and kube-public; upstream has none in default), with their
// annotation rbac.authorization.kubernetes.io/autoupdate: "true" and label
// kubernetes.io/bootstrapping: rbac-defaults, the aggregated admin, edit
// and view roles with their aggregationRule and the
// system:aggregate-to-* roles they select. It also carries upstream's
// ClusterRolesToAggregate and ClusterRoleBindingsToSplit.
//
// Upstream's policy functions consult feature gates. The data is generated
// with the default gates of 1.36.3 (emulation version 1.36); the file's
// featureGates section records each gate consulted and its value (e.g.
// ClusterTrustBundle and PodCertificateRequest off, so neither
// system:cluster-trust-bundle-discovery nor the pod-certificate rules are
// in). A server run with other gates gets the default-gate policy.
//
// The file is generated, never edited: the drift module test/drift holds
// the generator as a test (TestBootstrapPolicy) that fails when the file
// or this package's Go API differs from upstream's policy, and rewrites
// the file with -update:
//
//	cd test/drift && go test -run BootstrapPolicy -update
//
// ClusterRoles, ClusterRoleBindings, NamespaceRoles and
// NamespaceRoleBindings return fresh deep copies on every call: callers may
// modify them.
package bootstrappolicy
