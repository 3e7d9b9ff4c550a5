package serviceaccounttoken

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/cache"

	sa "github.com/svcplane/svcplane/internal/auth/serviceaccount"
)

const ca = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"

var acct = &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "robot", UID: "sa-uid"}}

func tokenSecret(annotations map[string]string, data map[string][]byte) *corev1.Secret {
	return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "robot-token", UID: "s-uid", Annotations: annotations},
		Type: corev1.SecretTypeServiceAccountToken, Data: data}
}

func newTest(t *testing.T, objs ...runtime.Object) (*Controller, *fake.Clientset, *sa.Generator) {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	gen, _ := sa.NewGenerator(sa.LegacyIssuer, key)
	client := fake.NewClientset(objs...)
	f := informers.NewSharedInformerFactory(client, 0)
	c := New(client, f.Core().V1().Secrets(), f.Core().V1().ServiceAccounts(), gen, []byte(ca))
	for _, o := range objs {
		switch o := o.(type) {
		case *corev1.Secret:
			_ = f.Core().V1().Secrets().Informer().GetStore().Add(o)
		case *corev1.ServiceAccount:
			_ = f.Core().V1().ServiceAccounts().Informer().GetStore().Add(o)
		}
	}
	return c, client, gen
}

func TestSync(t *testing.T) {
	named := map[string]string{corev1.ServiceAccountNameKey: "robot"}
	filled := func(token string) map[string][]byte {
		return map[string][]byte{"token": []byte(token), "ca.crt": []byte(ca), "namespace": []byte("ns")}
	}
	for _, tc := range []struct {
		name    string
		secret  *corev1.Secret
		noSA    bool
		verb    string // the one write expected, "" for none
		keepTok bool
	}{
		{name: "new", secret: tokenSecret(named, nil), verb: "update"},
		{name: "filled", secret: tokenSecret(map[string]string{corev1.ServiceAccountNameKey: "robot", corev1.ServiceAccountUIDKey: "sa-uid"}, filled("t")), keepTok: true},
		{name: "ca.crt removed: token kept", secret: tokenSecret(map[string]string{corev1.ServiceAccountNameKey: "robot", corev1.ServiceAccountUIDKey: "sa-uid"},
			map[string][]byte{"token": []byte("t"), "namespace": []byte("ns")}), verb: "update", keepTok: true},
		{name: "no service account", secret: tokenSecret(named, nil), noSA: true, verb: "delete"},
		{name: "service account re-created", secret: tokenSecret(map[string]string{corev1.ServiceAccountNameKey: "robot", corev1.ServiceAccountUIDKey: "old"}, filled("t")), verb: "delete"},
		{name: "other type", secret: &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "robot-token", Annotations: named}, Type: corev1.SecretTypeOpaque}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			objs := []runtime.Object{tc.secret}
			if !tc.noSA {
				objs = append(objs, acct)
			}
			c, client, _ := newTest(t, objs...)
			client.ClearActions()
			if err := c.sync(context.Background(), cache.MetaObjectToName(tc.secret)); err != nil {
				t.Fatal(err)
			}
			var writes []string
			for _, a := range client.Actions() {
				if a.GetVerb() != "get" && a.GetVerb() != "list" && a.GetVerb() != "watch" {
					writes = append(writes, a.GetVerb())
				}
			}
			want := []string{}
			if tc.verb != "" {
				want = []string{tc.verb}
			}
			if len(writes) != len(want) || (len(want) == 1 && writes[0] != want[0]) {
				t.Fatalf("writes %v, want %v", writes, want)
			}
			if tc.verb != "update" {
				return
			}
			s, err := client.CoreV1().Secrets("ns").Get(context.Background(), "robot-token", metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if string(s.Data["ca.crt"]) != ca || string(s.Data["namespace"]) != "ns" || len(s.Data["token"]) == 0 ||
				s.Annotations[corev1.ServiceAccountUIDKey] != "sa-uid" {
				t.Fatalf("secret: %+v", s)
			}
			if tc.keepTok != (string(s.Data["token"]) == "t") {
				t.Fatalf("token %q (kept: %v)", s.Data["token"], tc.keepTok)
			}
		})
	}
}
