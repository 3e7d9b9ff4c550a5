package reviews

import (
	"context"
	"fmt"

	authorizationv1 "k8s.io/api/authorization/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"
)

// NewSelfSubjectRulesReview lists what the caller may do in a namespace
// (kubectl auth can-i --list), from the rule resolver.
func NewSelfSubjectRulesReview(r authorizer.RuleResolver) rest.Storage {
	return &createOnly{
		newObj: func() runtime.Object { return &authorizationv1.SelfSubjectRulesReview{} }, singular: "selfsubjectrulesreview",
		answer: func(ctx context.Context, obj runtime.Object, admit admit) (runtime.Object, error) {
			review, ok := obj.(*authorizationv1.SelfSubjectRulesReview)
			if !ok {
				return nil, apierrors.NewBadRequest(fmt.Sprintf("not a SelfSubjectRulesReview: %#v", obj))
			}
			u, ok := genericapirequest.UserFrom(ctx)
			if !ok {
				return nil, apierrors.NewBadRequest("no user present on request")
			}
			if review.Spec.Namespace == "" {
				return nil, apierrors.NewBadRequest("no namespace on request")
			}
			if err := admit(ctx); err != nil {
				return nil, err
			}
			res, nonRes, incomplete, err := r.RulesFor(ctx, u, review.Spec.Namespace)
			out := &authorizationv1.SelfSubjectRulesReview{Status: authorizationv1.SubjectRulesReviewStatus{
				ResourceRules:    make([]authorizationv1.ResourceRule, len(res)),
				NonResourceRules: make([]authorizationv1.NonResourceRule, len(nonRes)),
				Incomplete:       incomplete,
			}}
			for i, info := range res {
				out.Status.ResourceRules[i] = authorizationv1.ResourceRule{Verbs: info.GetVerbs(), APIGroups: info.GetAPIGroups(), Resources: info.GetResources(), ResourceNames: info.GetResourceNames()}
			}
			for i, info := range nonRes {
				out.Status.NonResourceRules[i] = authorizationv1.NonResourceRule{Verbs: info.GetVerbs(), NonResourceURLs: info.GetNonResourceURLs()}
			}
			if err != nil {
				out.Status.EvaluationError = err.Error()
			}
			return out, nil
		},
	}
}
