// Package integration tests the API server in-process on a real embedded
// etcd with client-go: CRUD, selectors, pagination, watch, concurrency,
// patches, server-side apply, finalizers, namespaces, subresources, auth and
// restart.
package integration
