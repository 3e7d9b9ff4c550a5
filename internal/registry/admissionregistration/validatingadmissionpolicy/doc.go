// Package validatingadmissionpolicy defines the admissionregistration.k8s.io/v1 validatingadmissionpolicies
// resource as kube-apiserver serves it (pkg/registry/admissionregistration/validatingadmissionpolicy):
// CEL validations run in the server (with /status, where the type checks go); upstream's defaults and validation (internal/registry/admissionregistration/admregutil),
// metadata.generation, no create on update, updates need a resourceVersion,
// the api-extensions category and kubectl's columns.
package validatingadmissionpolicy
