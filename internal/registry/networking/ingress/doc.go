// Package ingress defines the networking.k8s.io/v1 ingresses resource with
// /status: upstream 1.36's validation (rules, hosts and wildcards, paths
// by pathType, service and resource backends, TLS, the ingress.class
// annotation; the allowances for invalid values already stored), its
// warnings, generation and kube-apiserver's columns. No controller: an
// ingress controller writes status.
package ingress
