// Package kubeletclient is how the API server reaches a node's kubelet API,
// as kube-apiserver's pkg/kubelet/client: the node's address by
// --kubelet-preferred-address-types, the port from
// status.daemonEndpoints.kubeletEndpoint.Port, HTTPS with
// --kubelet-client-certificate/--kubelet-client-key, the kubelet's serving
// certificate checked against --kubelet-certificate-authority (none
// given: not checked, as upstream).
//
// One svcplane addition: a Node annotated AddressAnnotation is dialled at
// that address instead. svcplane's simulated nodes have addresses
// (10.240.x.y) that route nowhere; their agent serves each node's kubelet
// API on a reachable address of its host and says so there. Any node may
// write its own annotations, as it may write its own addresses, so this
// gives a node no reach it did not have.
package kubeletclient
