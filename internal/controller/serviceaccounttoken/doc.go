// Package serviceaccounttoken is kube-controller-manager's
// "serviceaccount-token-controller" as of 1.24+: it generates no Secrets
// itself; a kubernetes.io/service-account-token Secret a user creates with
// the kubernetes.io/service-account.name annotation gets its token (a
// legacy JWT, issuer "kubernetes/serviceaccount", signed with the service
// account key), ca.crt and namespace, and the
// kubernetes.io/service-account.uid annotation. A token Secret whose
// ServiceAccount does not exist (or has another UID) is deleted, and a
// deleted ServiceAccount's token Secrets are deleted with it, as upstream.
// Shape: Secret and ServiceAccount informers → rate-limited work queue
// keyed namespace/name of the Secret → sync.
package serviceaccounttoken
