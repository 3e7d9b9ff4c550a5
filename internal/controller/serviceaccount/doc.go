// Package serviceaccount is kube-controller-manager's "serviceaccount"
// controller: every active namespace has the ServiceAccounts to ensure
// (DefaultServiceAccounts: "default"); one deleted is created again.
// Terminating namespaces are left alone (the create is refused there with
// the NamespaceTerminating cause, which is not an error). Shape: namespace
// and ServiceAccount informers → rate-limited work queue keyed by
// namespace name → sync.
package serviceaccount
