// Package lease defines the coordination.k8s.io/v1 leases resource.
package lease
