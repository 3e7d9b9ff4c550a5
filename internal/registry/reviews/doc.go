// Package reviews serves the create-only review resources, which store
// nothing and answer a question about the caller or a token:
// authorization.k8s.io/v1 SubjectAccessReview, LocalSubjectAccessReview,
// SelfSubjectAccessReview and SelfSubjectRulesReview (what `kubectl auth
// can-i` sends), and authentication.k8s.io/v1 TokenReview and
// SelfSubjectReview (`kubectl auth whoami`). Each asks the server's own
// authorizer or authenticator, with upstream's validation and messages
// (pkg/registry/authorization and pkg/registry/authentication in
// k8s.io/kubernetes).
package reviews
