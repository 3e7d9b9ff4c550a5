// Package namespace is the namespace controller: for a namespace being
// deleted whose spec.finalizers hold "kubernetes", it deletes everything in
// it (every namespaced resource the server serves, found by discovery) and,
// once nothing is left, finalizes the namespace (removes its "kubernetes"
// finalizer) so that the server deletes it. Shape: namespace informer →
// rate-limited work queue keyed by name → sync; content still going is
// retried after a short delay.
package namespace
