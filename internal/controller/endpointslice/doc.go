// Package endpointslice is the EndpointSlice controller: for every Service
// with a selector it keeps EndpointSlices (≤ 100 endpoints each, upstream's
// labels, owner reference, ready/serving/terminating conditions, nodeName
// and zone, topology hints for `service.kubernetes.io/topology-mode: Auto`
// and trafficDistribution) listing the pods the selector matches. The
// reconciling itself is the published k8s.io/endpointslice library, the
// same code kube-controller-manager runs; this package is the controller
// around it: informers, a work queue keyed namespace/name, and the
// pod → Services mapping.
package endpointslice
