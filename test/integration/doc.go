// Package integration tests the API server in-process on a real embedded
// etcd with client-go: CRUD, selectors, pagination, watch, concurrency,
// patches, server-side apply, finalizers, namespaces, subresources, auth and
// restart.
//
// Under `go test -short` no server starts and every test reports SKIP with
// the reason (skipShort). A failed call fails its test (get(...)(t),
// noErr), never panics the package, so the shared server is always
// stopped; waits go through eventually (internal/testutil).
package integration
