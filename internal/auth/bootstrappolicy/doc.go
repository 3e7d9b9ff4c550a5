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
//
// # Reconciliation
//
// Reconcile is the body of a post-start hook of the API server, named as
// kube-apiserver's (PostStartHookName, "rbac/bootstrap-roles"), registered
// once the server serves rbac.authorization.k8s.io/v1, beside the other
// bootstrap hooks (internal/apiserver's addBootstrapHooks) and with their
// loopback client:
//
//	s.AddPostStartHookOrDie(bootstrappolicy.PostStartHookName, func(hc genericapiserver.PostStartHookContext) error {
//		return bootstrappolicy.Reconcile(hc, client)
//	})
//
// Reconcile retries until the API answers and every object is reconciled,
// for at most Timeout (30 s, as upstream); an error means the policy could
// not be put in place: the hook returns it and the server must not report
// ready (kube-apiserver exits). What a pass creates, updates or leaves
// alone is in Reconcile's comment: it is upstream's union reconciliation
// (k8s.io/component-helpers/auth/rbac/reconciliation), which adds what an
// object lacks and never removes, and skips objects annotated
// rbac.authorization.kubernetes.io/autoupdate: "false". A pass writes
// nothing when the policy is already in place, so running it at every
// start, on every server sharing an etcd, is cheap and safe.
//
// The rules of the aggregated roles (admin, edit, view) are not written
// here: in Kubernetes the controller manager's clusterrole-aggregation
// controller fills them from the system:aggregate-to-* roles
// (internal/controller/clusterroleaggregation in svcplane).
package bootstrappolicy
