package reviews

import (
	"context"
	"fmt"

	authorizationv1 "k8s.io/api/authorization/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"
)

// NewSubjectAccessReview answers "may this user do this?" for any user
// (cluster-scoped; who may ask is RBAC's matter).
func NewSubjectAccessReview(a authorizer.Authorizer) rest.Storage {
	return &createOnly{
		newObj: func() runtime.Object { return &authorizationv1.SubjectAccessReview{} }, singular: "subjectaccessreview",
		answer: func(ctx context.Context, obj runtime.Object, admit admit) (runtime.Object, error) {
			sar, ok := obj.(*authorizationv1.SubjectAccessReview)
			if !ok {
				return nil, apierrors.NewBadRequest(fmt.Sprintf("not a SubjectAccessReview: %#v", obj))
			}
			errs := append(validateSubject(&sar.Spec), validateEmptyMeta(sar.ObjectMeta, false)...)
			if len(errs) > 0 {
				return nil, invalid("SubjectAccessReview", errs)
			}
			if err := admit(ctx); err != nil {
				return nil, err
			}
			sar.Status = decide(ctx, a, attributesFor(subjectOf(&sar.Spec), sar.Spec.ResourceAttributes, sar.Spec.NonResourceAttributes))
			return sar, nil
		},
	}
}

// NewLocalSubjectAccessReview is SubjectAccessReview within one namespace
// (so a namespace admin may be allowed to ask it).
func NewLocalSubjectAccessReview(a authorizer.Authorizer) rest.Storage {
	return &createOnly{
		newObj: func() runtime.Object { return &authorizationv1.LocalSubjectAccessReview{} }, singular: "localsubjectaccessreview", namespaced: true,
		answer: func(ctx context.Context, obj runtime.Object, admit admit) (runtime.Object, error) {
			sar, ok := obj.(*authorizationv1.LocalSubjectAccessReview)
			if !ok {
				return nil, apierrors.NewBadRequest(fmt.Sprintf("not a LocaLocalSubjectAccessReview: %#v", obj))
			}
			errs := append(validateSubject(&sar.Spec), validateEmptyMeta(sar.ObjectMeta, true)...)
			if ra := sar.Spec.ResourceAttributes; ra != nil && ra.Namespace != sar.Namespace {
				errs = append(errs, field.Invalid(field.NewPath("spec.resourceAttributes.namespace"), ra.Namespace, `must match metadata.namespace`))
			}
			if sar.Spec.NonResourceAttributes != nil {
				errs = append(errs, field.Invalid(field.NewPath("spec.nonResourceAttributes"), sar.Spec.NonResourceAttributes, `disallowed on this kind of request`))
			}
			if len(errs) > 0 {
				return nil, invalid("LocalSubjectAccessReview", errs)
			}
			namespace := genericapirequest.NamespaceValue(ctx)
			if namespace == "" {
				return nil, apierrors.NewBadRequest(fmt.Sprintf("namespace is required on this type: %v", namespace))
			}
			if namespace != sar.Namespace {
				return nil, apierrors.NewBadRequest(fmt.Sprintf("spec.resourceAttributes.namespace must match namespace: %v", namespace))
			}
			if err := admit(ctx); err != nil {
				return nil, err
			}
			sar.Status = decide(ctx, a, attributesFor(subjectOf(&sar.Spec), sar.Spec.ResourceAttributes, sar.Spec.NonResourceAttributes))
			return sar, nil
		},
	}
}

// NewSelfSubjectAccessReview answers "may I do this?" (kubectl auth can-i).
func NewSelfSubjectAccessReview(a authorizer.Authorizer) rest.Storage {
	return &createOnly{
		newObj: func() runtime.Object { return &authorizationv1.SelfSubjectAccessReview{} }, singular: "selfsubjectaccessreview",
		answer: func(ctx context.Context, obj runtime.Object, admit admit) (runtime.Object, error) {
			sar, ok := obj.(*authorizationv1.SelfSubjectAccessReview)
			if !ok {
				return nil, apierrors.NewBadRequest(fmt.Sprintf("not a SelfSubjectAccessReview: %#v", obj))
			}
			errs := append(validateAttributes(sar.Spec.ResourceAttributes, sar.Spec.NonResourceAttributes, field.NewPath("spec")), validateEmptyMeta(sar.ObjectMeta, false)...)
			if len(errs) > 0 {
				return nil, invalid("SelfSubjectAccessReview", errs)
			}
			u, ok := genericapirequest.UserFrom(ctx)
			if !ok {
				return nil, apierrors.NewBadRequest("no user present on request")
			}
			if err := admit(ctx); err != nil {
				return nil, err
			}
			sar.Status = decide(ctx, a, attributesFor(u, sar.Spec.ResourceAttributes, sar.Spec.NonResourceAttributes))
			return sar, nil
		},
	}
}

func decide(ctx context.Context, a authorizer.Authorizer, attrs authorizer.AttributesRecord) authorizationv1.SubjectAccessReviewStatus {
	d, reason, err := a.Authorize(ctx, attrs)
	return authorizationv1.SubjectAccessReviewStatus{
		Allowed: d == authorizer.DecisionAllow, Denied: d == authorizer.DecisionDeny,
		Reason: reason, EvaluationError: evaluationError(err, attrs),
	}
}

func invalid(kind string, errs field.ErrorList) error {
	return apierrors.NewInvalid(authorizationv1.SchemeGroupVersion.WithKind(kind).GroupKind(), "", errs)
}
