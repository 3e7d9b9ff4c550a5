// Package ingressclass defines the networking.k8s.io/v1 ingressclasses
// resource: upstream 1.36's defaults (parameters.scope Cluster),
// validation (controller a domain-prefixed path, immutable; the
// parameters reference by scope), generation and kube-apiserver's
// columns.
package ingressclass
