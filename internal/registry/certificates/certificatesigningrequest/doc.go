// Package certificatesigningrequest defines the certificates.k8s.io/v1
// certificatesigningrequests resource with /status and /approval, as
// kube-apiserver serves it: the requester's identity written into spec at
// create, spec immutable, upstream 1.36's validation (the PEM request and
// its signature, usages, signerName, expirationSeconds, conditions, the
// issued certificate) with its allowances for data already stored,
// approval conditions only through /approval and the certificate only
// through /status, condition timestamps, the spec.signerName field
// selector, kube-apiserver's columns. No signer or approver: as
// kube-apiserver without kube-controller-manager's csrsigning and
// csrapproving controllers.
package certificatesigningrequest
