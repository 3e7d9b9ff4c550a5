package apiserver

import (
	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/authentication/authenticator"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/utils/clock"

	"github.com/svcplane/svcplane/internal/registry/reviews"
)

// reviewStorages are the create-only review resources of
// authentication.k8s.io/v1 and authorization.k8s.io/v1, over the server's
// own authenticator and authorization chain.
func reviewStorages(a *authorizers, authn authenticator.Request, apiAudiences []string) map[schema.GroupVersion]map[string]rest.Storage {
	return map[schema.GroupVersion]map[string]rest.Storage{
		authenticationv1.SchemeGroupVersion: {
			"tokenreviews":       reviews.NewTokenReview(authn, apiAudiences),
			"selfsubjectreviews": reviews.NewSelfSubjectReview(clock.RealClock{}),
		},
		authorizationv1.SchemeGroupVersion: {
			"subjectaccessreviews":      reviews.NewSubjectAccessReview(a.authorizer),
			"localsubjectaccessreviews": reviews.NewLocalSubjectAccessReview(a.authorizer),
			"selfsubjectaccessreviews":  reviews.NewSelfSubjectAccessReview(a.authorizer),
			"selfsubjectrulesreviews":   reviews.NewSelfSubjectRulesReview(a.rules),
		},
	}
}
