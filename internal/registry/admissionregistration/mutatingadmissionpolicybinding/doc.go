// Package mutatingadmissionpolicybinding defines the admissionregistration.k8s.io/v1 mutatingadmissionpolicybindings
// resource as kube-apiserver serves it (pkg/registry/admissionregistration/mutatingadmissionpolicybinding):
// the bindings of MutatingAdmissionPolicies to resources and params; upstream's defaults and validation (internal/registry/admissionregistration/admregutil),
// metadata.generation, no create on update, updates need a resourceVersion,
// the api-extensions category and kubectl's columns.
package mutatingadmissionpolicybinding
