// Package namespace is the namespace controller: for a namespace being
// deleted whose spec.finalizers hold "kubernetes", it deletes everything in
// it (every namespaced resource the server serves, found by discovery) —
// pods first, the rest only once the pods are gone so their controllers
// cannot replace them — and, once nothing is left, finalizes the namespace
// (removes its "kubernetes" finalizer) so that the server deletes it.
// Every pass writes upstream's five deletion conditions to the namespace's
// status (NamespaceDeletionDiscoveryFailure, NamespaceDeletionGroupVersion
// ParsingFailure, NamespaceDeletionContentFailure, NamespaceContentRemaining,
// NamespaceFinalizersRemaining) with upstream's reasons and messages.
// Shape: namespace informer → rate-limited work queue keyed by name → sync;
// content still going is retried after a short delay.
package namespace
