// Package mutatingadmissionpolicy defines the admissionregistration.k8s.io/v1 mutatingadmissionpolicies
// resource as kube-apiserver serves it (pkg/registry/admissionregistration/mutatingadmissionpolicy):
// CEL mutations (JSON patches, apply configurations) run in the server; upstream's defaults and validation (internal/registry/admissionregistration/admregutil),
// metadata.generation, no create on update, updates need a resourceVersion,
// the api-extensions category and kubectl's columns.
package mutatingadmissionpolicy
