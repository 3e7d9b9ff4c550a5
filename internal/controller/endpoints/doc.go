// Package endpoints is the Endpoints controller: for every Service with a
// selector it writes the core/v1 Endpoints object of the same name (ready
// pods under addresses, unready ones under notReadyAddresses, or all ready
// with publishNotReadyAddresses; each pod's address the first of its
// status.podIPs in the Service's primary IP family, a pod without one left
// out; pods chosen by the published ShouldPodBeInEndpoints, hostname set by
// ShouldSetHostname), truncated to 1000 addresses with the
// endpoints.kubernetes.io/over-capacity: truncated annotation, as
// kube-controller-manager does. Shape: informers → queue → sync.
package endpoints
