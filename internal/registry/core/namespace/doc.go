// Package namespace defines the namespaces resource with /status and
// /finalize. Deleting a namespace with spec.finalizers marks it Terminating
// instead of removing it; it goes away once /finalize empties the finalizers
// (the namespace controller's job), as upstream.
package namespace
