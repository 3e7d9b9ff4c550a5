// Package runtimeclass defines the node.k8s.io/v1 runtimeclasses resource:
// upstream 1.36's validation (handler a DNS label and immutable, overhead
// as container limits, scheduling node selector and unique tolerations),
// its deprecated-node-label warnings and kube-apiserver's columns.
package runtimeclass
