// Package integration tests svcplane in-process on a real embedded etcd
// with client-go: the server as `svcplane server` composes it
// (internal/plane: the API server with its own loops and the controller
// manager; framework.Start), never a fake. Areas: CRUD, selectors,
// pagination, watch, concurrency, patches, server-side apply, finalizers,
// namespaces, subresources, auth and restart; the Service allocators and
// their repair loops (both allocator modes, dual-stack, several servers on
// one etcd), ServiceCIDRs, the `kubernetes` Service; and the controllers
// through the API (Deployments, ReplicaSets, garbage collection,
// Endpoints, EndpointSlices with topology, the scheduler, node lifecycle
// with the node agent on the node credentials).
//
// Each test server has its own temporary data dir and a free port; most
// tests share one server started by TestMain.
//
// Under `go test -short` no server starts and every test reports SKIP with
// the reason (skipShort). A failed call fails its test (get(...)(t),
// noErr), never panics the package, so the shared server is always
// stopped; waits go through eventually (internal/testutil).
package integration
