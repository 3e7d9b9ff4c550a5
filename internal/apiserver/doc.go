// Package apiserver assembles svcplane's Kubernetes-compatible API server on
// k8s.io/apiserver's generic server.
//
// It owns the runtime scheme (the external k8s.io/api types, registered a
// second time under the internal version so that the generic machinery treats
// them as their own hub), the etcd storage factory with kube-apiserver's key
// layout, authentication (client certificates, a static token file and the
// loopback token), the bootstrap authorizer, OpenAPI wiring and the list of
// served resources. Per-resource behaviour lives in internal/registry/...
//
// Guarantees: the server only serves HTTPS; anonymous requests get 401; values
// are stored in etcd as protobuf under /registry/...; New does no I/O beyond
// opening the listener and creating the etcd client.
package apiserver
