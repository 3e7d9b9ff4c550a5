// Package serviceaccount makes and checks ServiceAccount tokens as
// kube-apiserver does (k8s.io/kubernetes/pkg/serviceaccount, which the
// main module cannot import): JWTs signed with the service account key,
// bound tokens (TokenRequest: audiences, expiry, a Pod, Secret or Node
// they die with) and legacy tokens (kubernetes.io/service-account-token
// Secrets, issuer "kubernetes/serviceaccount").
//
// Guarantees, checked against upstream's generator and validator by
// test/drift:
//   - the same key IDs (SHA-256 of the PKIX public key, base64url), the
//     same signing algorithms (RS256; ES256/384/512 by curve) and the same
//     claims (iss, sub, aud, exp, iat, nbf, jti, kubernetes.io{…}), so a
//     token of ours passes kube-apiserver's authenticator and the reverse;
//   - a token authenticates only when its signature verifies with one of
//     the verification keys, its issuer is one of the configured issuers,
//     one of its audiences is asked for, it is within exp/nbf (a minute of
//     leeway) and the ServiceAccount and bound object still exist with the
//     UIDs in the token; the user is system:serviceaccount:<ns>:<name> with
//     upstream's groups and extra (pod-name, pod-uid, node-name, node-uid,
//     credential-id);
//   - errors carry upstream's text.
//
// One concept per file: keys.go (key files, key IDs), claims.go (what a
// token says), generator.go (signing), authenticator.go (parsing and the
// issuer/audience checks), validator.go (bound tokens), legacy.go (Secret
// tokens), getter.go (objects from informers), openidmetadata.go
// (discovery documents).
package serviceaccount
