// Package validatingadmissionpolicybinding defines the admissionregistration.k8s.io/v1 validatingadmissionpolicybindings
// resource as kube-apiserver serves it (pkg/registry/admissionregistration/validatingadmissionpolicybinding):
// the bindings of ValidatingAdmissionPolicies to resources, params and actions; upstream's defaults and validation (internal/registry/admissionregistration/admregutil),
// metadata.generation, no create on update, updates need a resourceVersion,
// the api-extensions category and kubectl's columns.
package validatingadmissionpolicybinding
