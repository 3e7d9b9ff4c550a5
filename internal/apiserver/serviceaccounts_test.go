package apiserver

import (
	"context"
	"net/http"
	"os"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apiserver/pkg/authentication/authenticator"
	"k8s.io/apiserver/pkg/authentication/request/bearertoken"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/svcplane/svcplane/internal/auth/node"
	sa "github.com/svcplane/svcplane/internal/auth/serviceaccount"
)

// BenchmarkServiceAccountTokenAuthentication: a request's bearer token (a
// pod-bound ServiceAccount token, as a pod sends) through the server's
// ServiceAccount authenticator: warm (the 10 s success cache holds it, as
// for every request after a client's first) and cold (signature, claims
// and the bound objects checked).
func BenchmarkServiceAccountTokenAuthentication(b *testing.B) {
	o := NewOptions()
	o.DataDir = b.TempDir()
	if err := os.MkdirAll(o.PKIDir(), 0o700); err != nil {
		b.Fatal(err)
	}
	tokens, err := loadServiceAccountTokens(o)
	if err != nil {
		b.Fatal(err)
	}
	acct := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "builder", UID: "sa-uid"}}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "p", UID: "pod-uid"}}
	client := fake.NewClientset(acct, pod)
	f := informers.NewSharedInformerFactory(client, 0)
	_ = f.Core().V1().ServiceAccounts().Informer().GetStore().Add(acct)
	_ = node.PodRecordInformer(f).GetStore().Add(node.RecordPod(pod))
	pub, priv, err := sa.Claims(time.Now(), "jti-1", acct, sa.Bound{Pod: pod}, 3600, 0, tokens.audiences)
	if err != nil {
		b.Fatal(err)
	}
	token, err := tokens.generator.GenerateToken(pub, priv)
	if err != nil {
		b.Fatal(err)
	}
	req := func(a authenticator.Token) func() (*authenticator.Response, bool, error) {
		r := &http.Request{Header: http.Header{"Authorization": []string{"Bearer " + token}}}
		r = r.WithContext(authenticator.WithAudiences(context.Background(), tokens.audiences))
		ba := bearertoken.New(a)
		return func() (*authenticator.Response, bool, error) {
			r.Header.Set("Authorization", "Bearer "+token) // bearertoken strips it
			return ba.AuthenticateRequest(r)
		}
	}
	for _, bc := range []struct {
		name string
		auth authenticator.Token
	}{
		{"warm-cache", tokens.authenticator(client, f)},
		{"uncached", tokens.uncachedAuthenticator(client, f)},
	} {
		b.Run(bc.name, func(b *testing.B) {
			do := req(bc.auth)
			if resp, ok, err := do(); !ok || err != nil || resp.User.GetName() != "system:serviceaccount:ns:builder" {
				b.Fatalf("token not authenticated: %v %v %+v", ok, err, resp)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, ok, _ := do(); !ok {
					b.Fatal("token refused")
				}
			}
		})
	}
}
