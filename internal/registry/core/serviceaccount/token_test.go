package serviceaccount

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"strings"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/warning"
	clocktesting "k8s.io/utils/clock/testing"

	sa "github.com/svcplane/svcplane/internal/auth/serviceaccount"
)

// getter serves objects by name.
type getter struct {
	resource string
	objs     map[string]runtime.Object
}

func (g getter) Get(_ context.Context, name string, _ *metav1.GetOptions) (runtime.Object, error) {
	if o, ok := g.objs[name]; ok {
		return o, nil
	}
	return nil, apierrors.NewNotFound(schema.GroupResource{Resource: g.resource}, name)
}

type warnings []string

func (w *warnings) AddWarning(_, text string) { *w = append(*w, text) }

const iss = "https://kubernetes.default.svc.cluster.local"

func newREST(t *testing.T, maxExp time.Duration) (*TokenREST, *clocktesting.FakePassiveClock) {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	gen, _ := sa.NewGenerator(iss, key)
	clk := clocktesting.NewFakePassiveClock(time.Unix(1_700_000_000, 0))
	r := NewTokenREST(getter{"serviceaccounts", map[string]runtime.Object{"default": &corev1.ServiceAccount{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "default", UID: "sa-uid"}}}},
		TokenConfig{Generator: gen, Audiences: []string{iss}, MaxExpiration: maxExp, ExtendExpiration: true,
			MaxExtendedExpiration: sa.ExpirationExtensionSeconds * time.Second, Clock: clk, NewJTI: func() string { return "jti" }})
	r.Pods = getter{"pods", map[string]runtime.Object{
		"p":     &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "p", UID: "pod-uid"}, Spec: corev1.PodSpec{ServiceAccountName: "default", NodeName: "gone"}},
		"other": &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "other", UID: "o"}, Spec: corev1.PodSpec{ServiceAccountName: "robot"}},
	}}
	r.Secrets, r.Nodes = getter{"secrets", nil}, getter{"nodes", nil}
	return r, clk
}

func TestTokenRequest(t *testing.T) {
	exp := func(s int64) *int64 { return &s }
	for _, tc := range []struct {
		name    string
		maxExp  time.Duration
		spec    authenticationv1.TokenRequestSpec
		meta    metav1.ObjectMeta
		err     string
		expires int64 // seconds after now in the status
		claims  string
		warning string
	}{
		{name: "defaults", expires: 3600},
		{name: "too short", spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: exp(599)},
			err: `TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: Invalid value: 599: may not specify a duration less than 10 minutes`},
		{name: "too long", spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: exp(1<<32 + 1)},
			err: `may not specify a duration larger than 2^32 seconds`},
		{name: "shortened", maxExp: 2 * time.Hour, spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: exp(86400)},
			expires: 7200, warning: "requested expiration of 86400 seconds shortened to 7200 seconds"},
		{name: "name mismatch", meta: metav1.ObjectMeta{Name: "x"}, err: "metadata.name: Invalid value: \"x\": must match the service account name if specified"},
		{name: "uid mismatch", meta: metav1.ObjectMeta{UID: "x"}, err: "the UID in the token request (x) does not match the UID of the service account (sa-uid)"},
		{name: "pod bound, node missing", spec: authenticationv1.TokenRequestSpec{BoundObjectRef: &authenticationv1.BoundObjectReference{Kind: "Pod", APIVersion: "v1", Name: "p", UID: "pod-uid"}},
			expires: 3600, claims: `"node":{"name":"gone"},"pod":{"name":"p","uid":"pod-uid"}`},
		{name: "kubelet's projected token is extended", spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: exp(3607),
			BoundObjectRef: &authenticationv1.BoundObjectReference{Kind: "Pod", APIVersion: "v1", Name: "p"}},
			expires: 3607, claims: `"warnafter":1700003607`},
		{name: "pod of another service account", spec: authenticationv1.TokenRequestSpec{BoundObjectRef: &authenticationv1.BoundObjectReference{Kind: "Pod", APIVersion: "v1", Name: "other"}},
			err: `cannot bind token for serviceaccount "default" to pod running with different serviceaccount name.`},
		{name: "pod uid mismatch", spec: authenticationv1.TokenRequestSpec{BoundObjectRef: &authenticationv1.BoundObjectReference{Kind: "Pod", APIVersion: "v1", Name: "p", UID: "old"}},
			err: `Operation cannot be fulfilled on Pod "p": the UID in the bound object reference (old) does not match the UID in record. The object might have been deleted and then recreated`},
		{name: "missing secret", spec: authenticationv1.TokenRequestSpec{BoundObjectRef: &authenticationv1.BoundObjectReference{Kind: "Secret", APIVersion: "v1", Name: "s"}},
			err: `secrets "s" not found`},
		{name: "unsupported kind", spec: authenticationv1.TokenRequestSpec{BoundObjectRef: &authenticationv1.BoundObjectReference{Kind: "ConfigMap", APIVersion: "v1", Name: "c"}},
			err: `cannot bind token to object of type /v1, Kind=ConfigMap`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, clk := newREST(t, tc.maxExp)
			var w warnings
			ctx := warning.WithWarningRecorder(genericapirequest.WithNamespace(context.Background(), "ns"), &w)
			out, err := r.Create(ctx, "default", &authenticationv1.TokenRequest{ObjectMeta: tc.meta, Spec: tc.spec}, nil, &metav1.CreateOptions{})
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("got %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tr := out.(*authenticationv1.TokenRequest)
			if got := tr.Status.ExpirationTimestamp.Sub(clk.Now()); got != time.Duration(tc.expires)*time.Second {
				t.Errorf("expires after %v, want %ds", got, tc.expires)
			}
			if tr.Name != "default" || tr.Namespace != "ns" || tr.UID != "sa-uid" || strings.Join(tr.Spec.Audiences, ",") != iss {
				t.Errorf("answer: %+v", tr)
			}
			if tc.warning != "" && (len(w) != 1 || w[0] != tc.warning) {
				t.Errorf("warnings %q, want %q", w, tc.warning)
			}
			payload := strings.Split(tr.Status.Token, ".")[1]
			if tc.claims != "" && !strings.Contains(decode(t, payload), tc.claims) {
				t.Errorf("claims %s, want %s in them", decode(t, payload), tc.claims)
			}
		})
	}
}

func decode(t *testing.T, s string) string {
	t.Helper()
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
