// Package framework starts an in-process svcplane server for integration
// tests: internal/plane with `svcplane server`'s defaults (API server and
// controller manager, node credentials in <data-dir>/node-kubeconfig and
// node-simulator-kubeconfig) on a
// real embedded etcd in a temporary data dir, on 127.0.0.1 and a free port.
// Start returns once /readyz is 200; Options (plane.Options) let a test
// change any server or controller flag; Stop shuts the server down and
// removes the data dir Start made.
package framework
