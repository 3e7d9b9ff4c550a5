// Package mutatingwebhookconfiguration defines the admissionregistration.k8s.io/v1 mutatingwebhookconfigurations
// resource as kube-apiserver serves it (pkg/registry/admissionregistration/mutatingwebhookconfiguration):
// webhooks called (in order) to mutate requests; upstream's defaults and validation (internal/registry/admissionregistration/admregutil),
// metadata.generation, no create on update, updates need a resourceVersion,
// the api-extensions category and kubectl's columns.
package mutatingwebhookconfiguration
