// Package csinode defines the storage.k8s.io/v1 csinodes resource:
// upstream 1.36's validation (driver names, node IDs, topology keys,
// allocatable counts; a driver's entry immutable but for its allocatable
// count) and kube-apiserver's columns. No controller: kubelets write them.
package csinode
