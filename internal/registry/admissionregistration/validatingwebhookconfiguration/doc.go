// Package validatingwebhookconfiguration defines the admissionregistration.k8s.io/v1 validatingwebhookconfigurations
// resource as kube-apiserver serves it (pkg/registry/admissionregistration/validatingwebhookconfiguration):
// webhooks called (in parallel) to validate requests; upstream's defaults and validation (internal/registry/admissionregistration/admregutil),
// metadata.generation, no create on update, updates need a resourceVersion,
// the api-extensions category and kubectl's columns.
package validatingwebhookconfiguration
