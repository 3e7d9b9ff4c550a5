// Package metrics holds the proxy's Prometheus metrics under kube-proxy's
// names (subsystem "kubeproxy"), registered on a registry the caller owns.
package metrics
