// Package plane composes what runs in one svcplane process: the place to
// read "what does `svcplane server` (or `up`) run".
//
//	server = API server (internal/apiserver, with the loops kube-apiserver
//	         runs itself: system namespaces, default ServiceCIDR, the
//	         `kubernetes` Service, the allocation repair loops)
//	       + controller manager (internal/controller/manager)
//	up     = server on an embedded etcd
//	       + --nodes local simulated nodes (internal/node/agent)
//	       + the single local node's service proxy (internal/proxy/app)
//	       + the cluster DNS behind kube-system/kube-dns (internal/dns)
//
// `svcplane node` runs the agent alone (RunNodes, NodeOptions).
//
// Guarantees: New validates every option before it starts anything (then
// apiserver.New starts etcd and opens the listener) and releases what it
// took when it fails. The controller manager, local nodes and proxy start
// in post-start hooks that return at once, so they never hold up /readyz,
// and begin once /readyz is 200 (system namespaces, bootstrap policy and
// the kubernetes Service exist then; hooks run concurrently); the
// controllers run on the server's loopback client config under Lease
// leader election, one local node with the node credentials New mints into
// <data-dir>/node-kubeconfig (a node identity: Node authorizer,
// NodeRestriction), several with the node simulator's in
// <data-dir>/node-simulator-kubeconfig, the proxy with the admin
// kubeconfig. All of
// them stop when Run's context ends. A proxy that cannot program the
// kernel, or a DNS that cannot bind its port, logs why and leaves the
// rest running. The API server package
// imports no controller; this one is where they meet (a test in
// internal/boundaries_test.go keeps it so).
package plane
