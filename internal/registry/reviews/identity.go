package reviews

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	authenticationv1 "k8s.io/api/authentication/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/authentication/authenticator"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
)

var errAudiences = apierrors.NewInternalError(errors.New("error validating audiences"))

// NewTokenReview authenticates a bearer token as the server would (its own
// authenticator), for the audiences asked or the server's API audiences.
func NewTokenReview(authn authenticator.Request, apiAudiences []string) rest.Storage {
	return &createOnly{
		newObj: func() runtime.Object { return &authenticationv1.TokenReview{} }, singular: "tokenreview",
		answer: func(ctx context.Context, obj runtime.Object, admit admit) (runtime.Object, error) {
			review, ok := obj.(*authenticationv1.TokenReview)
			if !ok {
				return nil, apierrors.NewBadRequest(fmt.Sprintf("not a TokenReview: %#v", obj))
			}
			if ns := genericapirequest.NamespaceValue(ctx); ns != "" {
				return nil, apierrors.NewBadRequest(fmt.Sprintf("namespace is not allowed on this type: %v", ns))
			}
			if review.Spec.Token == "" {
				return nil, apierrors.NewBadRequest("token is required for TokenReview in authentication")
			}
			if err := admit(ctx); err != nil {
				return nil, err
			}
			req := &http.Request{Header: http.Header{}}
			req.Header.Add("Authorization", "Bearer "+review.Spec.Token)
			auds := review.Spec.Audiences
			if len(auds) == 0 {
				auds = apiAudiences
			}
			if len(auds) > 0 {
				req = req.WithContext(authenticator.WithAudiences(req.Context(), auds))
			}
			resp, ok, err := authn.AuthenticateRequest(req)
			review.Status.Authenticated = ok
			if err != nil {
				review.Status.Error = err.Error()
			}
			if len(auds) > 0 && resp != nil && len(authenticator.Audiences(auds).Intersect(resp.Audiences)) == 0 {
				klog.Errorf("error validating audience. want=%q got=%q", auds, resp.Audiences)
				return nil, errAudiences
			}
			if resp != nil && resp.User != nil {
				review.Status.User = authenticationv1.UserInfo{Username: resp.User.GetName(), UID: resp.User.GetUID(),
					Groups: resp.User.GetGroups(), Extra: map[string]authenticationv1.ExtraValue{}}
				for k, v := range resp.User.GetExtra() {
					review.Status.User.Extra[k] = v
				}
				review.Status.Audiences = resp.Audiences
			}
			return review, nil
		},
	}
}

// NewSelfSubjectReview tells the caller who the server thinks they are
// (kubectl auth whoami).
func NewSelfSubjectReview(clk clock.PassiveClock) rest.Storage {
	return &createOnly{
		newObj: func() runtime.Object { return &authenticationv1.SelfSubjectReview{} }, singular: "selfsubjectreview",
		answer: func(ctx context.Context, obj runtime.Object, admit admit) (runtime.Object, error) {
			if err := admit(ctx); err != nil {
				return nil, err
			}
			if _, ok := obj.(*authenticationv1.SelfSubjectReview); !ok {
				return nil, apierrors.NewBadRequest(fmt.Sprintf("not a SelfSubjectReview: %#v", obj))
			}
			u, ok := genericapirequest.UserFrom(ctx)
			if !ok {
				return nil, apierrors.NewBadRequest("no user present on request")
			}
			extra := u.GetExtra()
			out := &authenticationv1.SelfSubjectReview{
				ObjectMeta: metav1.ObjectMeta{CreationTimestamp: metav1.NewTime(clk.Now())},
				Status: authenticationv1.SelfSubjectReviewStatus{UserInfo: authenticationv1.UserInfo{
					Username: u.GetName(), UID: u.GetUID(), Groups: u.GetGroups(),
					Extra: make(map[string]authenticationv1.ExtraValue, len(extra)),
				}},
			}
			for k, v := range extra {
				out.Status.UserInfo.Extra[k] = v
			}
			return out, nil
		},
	}
}
