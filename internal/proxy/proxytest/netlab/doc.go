// Package netlab builds the network namespaces the proxy backends' kernel
// tests send real traffic through: a node that runs the backend's rules, a
// client and two backends (b1 10.244.1.2, b2 10.244.2.3), joined to the
// node by veth pairs (client 10.100.0.2 ↔ node 10.100.0.1, b1 ↔ 10.244.1.1,
// b2 ↔ 10.244.2.1). No namespace has a default route; traffic only ever
// goes to the lab's own addresses. Tests re-execute their own binary inside
// a namespace in a helper role (RoleEnv) — an echo server on :8080 in each
// backend, a dialer in the client, the backend's sync in the node — and the
// roles' code lives here too (Echo, Dial). Namespaces and helpers are removed
// when the test ends.
package netlab
