// Package mirroring is the EndpointSlice mirroring controller: for a
// Service without a selector whose Endpoints object was written by hand,
// it keeps EndpointSlices (managed-by endpointslicemirroring-controller.k8s.io)
// holding the same addresses and ports, one per subset and address family,
// so that EndpointSlice consumers (the proxy) see them. Endpoints labelled
// endpointslice.kubernetes.io/skip-mirror are left alone.
package mirroring
