// Package endpointslice defines the discovery.k8s.io/v1 endpointslices resource.
package endpointslice
