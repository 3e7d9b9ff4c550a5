// Package apiserver assembles svcplane's Kubernetes-compatible API server on
// k8s.io/apiserver's generic server.
//
// It owns the runtime scheme (the external k8s.io/api types, registered a
// second time under the internal version so that the generic machinery treats
// them as their own hub), the etcd storage factory with kube-apiserver's key
// layout, authentication (client certificates, a static token file,
// ServiceAccount tokens signed with <data-dir>/pki/sa.key or
// --service-account-signing-key-file, and the loopback token), the
// serviceaccounts/token subresource and the issuer discovery documents, the
// authorization chain (system:masters, then
// --authorization-mode: Node, upstream's Node authorizer from
// internal/auth/node; RBAC over informers; AlwaysAllow/Deny), admission
// (NamespaceLifecycle, ServiceAccount, NodeRestriction, then
// k8s.io/apiserver's MutatingAdmissionPolicy, MutatingAdmissionWebhook,
// ValidatingAdmissionPolicy and ValidatingAdmissionWebhook, with the
// webhook service resolver of --enable-aggregator-routing), the RBAC API's escalation guard, the review resources, upstream's RBAC
// bootstrap policy (the rbac/bootstrap-roles hook), OpenAPI wiring,
// CustomResourceDefinitions (k8s.io/apiextensions-apiserver's generic
// server, svcplane's groups installed into it, is the delegate of the
// aggregator, internal/aggregator, which serves APIServices and /apis),
// the front proxy's request-header authentication and the
// extension-apiserver-authentication ConfigMap, the
// list of served resources, the Service IP and port allocators, and the loops
// kube-apiserver runs itself as post-start hooks: the system namespaces, the
// default ServiceCIDR, the allocation repair loops and the `kubernetes`
// Service with its endpoints. Per-resource behaviour lives in
// internal/registry/...
//
// It starts no controller, node or proxy and imports none
// (internal/boundaries_test.go): internal/plane composes those around it.
//
// Guarantees: the server only serves HTTPS; requests with bad credentials get 401 and anonymous ones (kube-apiserver's --anonymous-auth, on by default) may read /healthz, /livez, /readyz and /version only; values
// are stored in etcd as protobuf under /registry/...; /readyz is 200 only
// after the system namespaces exist, the default ServiceCIDR exists
// (IPAddress mode), the RBAC bootstrap policy is in place, every repair
// loop has passed once and the CustomResourceDefinitions are known (their
// informer has synced and their discovery is in place).
//
// New does I/O: it validates the options, takes the data directory's lock,
// starts the embedded etcd member (without --etcd-servers), loads or creates
// the certificates under <data-dir>/pki, opens the secure listener and
// writes the admin kubeconfig (<data-dir>/kubeconfig); it serves nothing
// until Run. When New fails it releases the lock and stops the member; a
// Server that will not Run is released with Close. Run serves until its
// context ends, then runs the pre-shutdown hooks, drains requests, shuts
// down the repair loops' event broadcaster and stops the member.
package apiserver
