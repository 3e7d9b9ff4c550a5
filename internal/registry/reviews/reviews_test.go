package reviews

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/authentication/authenticator"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"
	clocktesting "k8s.io/utils/clock/testing"
)

// fakeAuthz allows alice to get pods and everyone to get /healthz, and
// records the last question.
type fakeAuthz struct{ last authorizer.Attributes }

func (f *fakeAuthz) Authorize(_ context.Context, a authorizer.Attributes) (authorizer.Decision, string, error) {
	f.last = a
	if a.IsResourceRequest() && a.GetUser().GetName() == "alice" && a.GetVerb() == "get" && a.GetResource() == "pods" {
		return authorizer.DecisionAllow, "alice reads pods", nil
	}
	if !a.IsResourceRequest() && a.GetPath() == "/healthz" {
		return authorizer.DecisionAllow, "", nil
	}
	return authorizer.DecisionNoOpinion, "", nil
}

func (f *fakeAuthz) RulesFor(_ context.Context, u user.Info, ns string) ([]authorizer.ResourceRuleInfo, []authorizer.NonResourceRuleInfo, bool, error) {
	return []authorizer.ResourceRuleInfo{&authorizer.DefaultResourceRuleInfo{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"pods"}}},
		[]authorizer.NonResourceRuleInfo{&authorizer.DefaultNonResourceRuleInfo{Verbs: []string{"get"}, NonResourceURLs: []string{"/healthz"}}},
		false, errors.New("one binding's role is missing")
}

var alice = &user.DefaultInfo{Name: "alice", UID: "u1", Groups: []string{"devs", user.AllAuthenticated}, Extra: map[string][]string{"k": {"v"}}}

func ctxAs(u user.Info, ns string) context.Context {
	return genericapirequest.WithNamespace(genericapirequest.WithUser(context.Background(), u), ns)
}

func create(t *testing.T, s rest.Storage, ctx context.Context, obj runtime.Object) (runtime.Object, error) {
	t.Helper()
	return s.(rest.Creater).Create(ctx, obj, nil, &metav1.CreateOptions{})
}

// invalidPaths returns the field paths of a 422, or fails.
func invalidPaths(t *testing.T, err error) string {
	t.Helper()
	st, ok := err.(apierrors.APIStatus)
	if !ok || !apierrors.IsInvalid(err) {
		t.Fatalf("want 422 Invalid, got %v", err)
	}
	var paths []string
	for _, c := range st.Status().Details.Causes {
		paths = append(paths, c.Field)
	}
	return strings.Join(paths, ",")
}

func TestSelfSubjectAccessReview(t *testing.T) {
	az := &fakeAuthz{}
	s := NewSelfSubjectAccessReview(az)
	out, err := create(t, s, ctxAs(alice, ""), &authorizationv1.SelfSubjectAccessReview{Spec: authorizationv1.SelfSubjectAccessReviewSpec{
		ResourceAttributes: &authorizationv1.ResourceAttributes{Namespace: "ns", Verb: "get", Resource: "pods"}}})
	if err != nil {
		t.Fatal(err)
	}
	st := out.(*authorizationv1.SelfSubjectAccessReview).Status
	if !st.Allowed || st.Reason != "alice reads pods" || az.last.GetUser().GetName() != "alice" || az.last.GetAPIVersion() != "*" || az.last.GetNamespace() != "ns" {
		t.Errorf("status %+v, asked %+v", st, az.last)
	}
	_, err = create(t, s, ctxAs(alice, ""), &authorizationv1.SelfSubjectAccessReview{})
	if p := invalidPaths(t, err); p != "spec.resourceAttributes" {
		t.Errorf("no attributes: paths %s", p)
	}
	_, err = create(t, s, ctxAs(alice, ""), &authorizationv1.SelfSubjectAccessReview{ObjectMeta: metav1.ObjectMeta{Name: "x"}, Spec: authorizationv1.SelfSubjectAccessReviewSpec{
		ResourceAttributes: &authorizationv1.ResourceAttributes{}, NonResourceAttributes: &authorizationv1.NonResourceAttributes{}}})
	if p := invalidPaths(t, err); p != "spec.nonResourceAttributes,metadata" {
		t.Errorf("both attributes and a name: paths %s", p)
	}
	// A selector that does not parse is ignored and said so.
	out, err = create(t, s, ctxAs(alice, ""), &authorizationv1.SelfSubjectAccessReview{Spec: authorizationv1.SelfSubjectAccessReviewSpec{
		ResourceAttributes: &authorizationv1.ResourceAttributes{Verb: "list", Resource: "pods", LabelSelector: &authorizationv1.LabelSelectorAttributes{RawSelector: "a in (("}}}})
	if err != nil {
		t.Fatal(err)
	}
	if e := out.(*authorizationv1.SelfSubjectAccessReview).Status.EvaluationError; e != "spec.resourceAttributes.labelSelector ignored due to parse error" {
		t.Errorf("evaluationError %q", e)
	}
}

func TestSubjectAccessReviews(t *testing.T) {
	az := &fakeAuthz{}
	out, err := create(t, NewSubjectAccessReview(az), ctxAs(&user.DefaultInfo{Name: "admin"}, ""), &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
		User: "alice", Groups: []string{"devs"}, Extra: map[string]authorizationv1.ExtraValue{"k": {"v"}}, ResourceAttributes: &authorizationv1.ResourceAttributes{Verb: "get", Resource: "pods"}}})
	if err != nil || !out.(*authorizationv1.SubjectAccessReview).Status.Allowed || az.last.GetUser().GetExtra()["k"][0] != "v" {
		t.Errorf("SAR for alice: %v %+v", err, out)
	}
	_, err = create(t, NewSubjectAccessReview(az), ctxAs(alice, ""), &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
		NonResourceAttributes: &authorizationv1.NonResourceAttributes{Path: "/healthz", Verb: "get"}}})
	if p := invalidPaths(t, err); p != "spec.user" {
		t.Errorf("SAR without user or group: paths %s", p)
	}
	lsar := NewLocalSubjectAccessReview(az)
	_, err = create(t, lsar, ctxAs(alice, "ns"), &authorizationv1.LocalSubjectAccessReview{ObjectMeta: metav1.ObjectMeta{Namespace: "ns"}, Spec: authorizationv1.SubjectAccessReviewSpec{
		User: "alice", ResourceAttributes: &authorizationv1.ResourceAttributes{Namespace: "other", Verb: "get", Resource: "pods"}}})
	if p := invalidPaths(t, err); p != "spec.resourceAttributes.namespace" {
		t.Errorf("LSAR for another namespace: paths %s", p)
	}
	_, err = create(t, lsar, ctxAs(alice, "ns"), &authorizationv1.LocalSubjectAccessReview{ObjectMeta: metav1.ObjectMeta{Namespace: "other"}, Spec: authorizationv1.SubjectAccessReviewSpec{
		User: "alice", ResourceAttributes: &authorizationv1.ResourceAttributes{Namespace: "other", Verb: "get", Resource: "pods"}}})
	if !apierrors.IsBadRequest(err) || !strings.Contains(err.Error(), "must match namespace: ns") {
		t.Errorf("LSAR body in another namespace than its URL: %v", err)
	}
	out, err = create(t, lsar, ctxAs(alice, "ns"), &authorizationv1.LocalSubjectAccessReview{ObjectMeta: metav1.ObjectMeta{Namespace: "ns"}, Spec: authorizationv1.SubjectAccessReviewSpec{
		User: "bob", ResourceAttributes: &authorizationv1.ResourceAttributes{Namespace: "ns", Verb: "get", Resource: "pods"}}})
	if err != nil || out.(*authorizationv1.LocalSubjectAccessReview).Status.Allowed {
		t.Errorf("LSAR for bob: %v %+v", err, out)
	}
}

func TestSelfSubjectRulesReview(t *testing.T) {
	s := NewSelfSubjectRulesReview(&fakeAuthz{})
	if _, err := create(t, s, ctxAs(alice, ""), &authorizationv1.SelfSubjectRulesReview{}); !apierrors.IsBadRequest(err) || !strings.Contains(err.Error(), "no namespace on request") {
		t.Errorf("no namespace: %v", err)
	}
	out, err := create(t, s, ctxAs(alice, ""), &authorizationv1.SelfSubjectRulesReview{Spec: authorizationv1.SelfSubjectRulesReviewSpec{Namespace: "ns"}})
	if err != nil {
		t.Fatal(err)
	}
	st := out.(*authorizationv1.SelfSubjectRulesReview).Status
	if len(st.ResourceRules) != 1 || st.ResourceRules[0].Resources[0] != "pods" || len(st.NonResourceRules) != 1 || st.EvaluationError != "one binding's role is missing" {
		t.Errorf("status %+v", st)
	}
}

func TestTokenReview(t *testing.T) {
	authn := authenticator.RequestFunc(func(r *http.Request) (*authenticator.Response, bool, error) {
		if r.Header.Get("Authorization") != "Bearer good" {
			return nil, false, errors.New("invalid bearer token")
		}
		auds, _ := authenticator.AudiencesFrom(r.Context())
		return &authenticator.Response{User: alice, Audiences: auds}, true, nil
	})
	s := NewTokenReview(authn, []string{"https://kubernetes.default.svc"})
	if _, err := create(t, s, ctxAs(alice, ""), &authenticationv1.TokenReview{}); !apierrors.IsBadRequest(err) {
		t.Errorf("no token: %v", err)
	}
	out, err := create(t, s, ctxAs(alice, ""), &authenticationv1.TokenReview{Spec: authenticationv1.TokenReviewSpec{Token: "good"}})
	if err != nil {
		t.Fatal(err)
	}
	st := out.(*authenticationv1.TokenReview).Status
	if !st.Authenticated || st.User.Username != "alice" || st.User.Extra["k"][0] != "v" || len(st.Audiences) != 1 {
		t.Errorf("good token: %+v", st)
	}
	out, err = create(t, s, ctxAs(alice, ""), &authenticationv1.TokenReview{Spec: authenticationv1.TokenReviewSpec{Token: "bad"}})
	if err != nil {
		t.Fatal(err)
	}
	if st := out.(*authenticationv1.TokenReview).Status; st.Authenticated || st.Error != "invalid bearer token" {
		t.Errorf("bad token: %+v", st)
	}
}

func TestSelfSubjectReview(t *testing.T) {
	now := time.Date(2026, 11, 26, 4, 0, 0, 0, time.UTC)
	out, err := create(t, NewSelfSubjectReview(clocktesting.NewFakePassiveClock(now)), ctxAs(alice, ""), &authenticationv1.SelfSubjectReview{})
	if err != nil {
		t.Fatal(err)
	}
	r := out.(*authenticationv1.SelfSubjectReview)
	if u := r.Status.UserInfo; u.Username != "alice" || u.UID != "u1" || len(u.Groups) != 2 || u.Extra["k"][0] != "v" || !r.CreationTimestamp.Time.Equal(now) {
		t.Errorf("whoami: %+v", r)
	}
}
