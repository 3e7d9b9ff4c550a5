// Package rootcacertpublisher is kube-controller-manager's
// "root-ca-cert-publisher" controller: every namespace has the ConfigMap
// kube-root-ca.crt whose key ca.crt is the CA bundle that verifies the API
// server (svcplane's cluster CA, <data-dir>/pki/ca.crt), annotated with
// kubernetes.io/description as upstream. One deleted is created again, one
// changed is written back. Creates refused because the namespace is gone or
// terminating are not retried. Shape: namespace and ConfigMap informers →
// rate-limited work queue keyed by namespace name → sync.
package rootcacertpublisher
