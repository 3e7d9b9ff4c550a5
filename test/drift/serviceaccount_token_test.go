package drift

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"gopkg.in/go-jose/go-jose.v2/jwt"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apiserver/pkg/authentication/authenticator"
	tokenunion "k8s.io/apiserver/pkg/authentication/token/union"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/kubernetes/pkg/apis/core"
	upstream "k8s.io/kubernetes/pkg/serviceaccount"
	"k8s.io/utils/clock"

	svcsa "github.com/svcplane/svcplane/internal/auth/serviceaccount"
)

const saIssuer = "https://kubernetes.default.svc.cluster.local"

// saObjects is a getter both validators read (upstream's
// ServiceAccountTokenGetter and ours have the same methods).
type saObjects = svcsa.StaticGetter

var (
	dAcct   = &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "robot", UID: "sa-uid"}}
	dPod    = &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "p", UID: "pod-uid"}, Spec: corev1.PodSpec{NodeName: "n1"}}
	dNode   = &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1", UID: "node-uid"}}
	dSecret = &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "s", UID: "secret-uid"}}
)

// tokenMaker makes a token: by our generator or upstream's, for the same
// inputs.
type tokenMaker func(t *testing.T, key interface{}, b svcsa.Bound, auds []string, iat time.Time, exp int64) string

func oursMaker(t *testing.T, key interface{}, b svcsa.Bound, auds []string, iat time.Time, exp int64) string {
	g, err := svcsa.NewGenerator(saIssuer, key)
	if err != nil {
		t.Fatal(err)
	}
	pc, pr, err := svcsa.Claims(iat, "jti-1", dAcct, b, exp, 0, auds)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := g.GenerateToken(pc, pr)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func upstreamMaker(t *testing.T, key interface{}, b svcsa.Bound, auds []string, iat time.Time, exp int64) string {
	g, err := upstream.JWTTokenGenerator(saIssuer, key)
	if err != nil {
		t.Fatal(err)
	}
	meta := func(m metav1.ObjectMeta) metav1.ObjectMeta { return *m.DeepCopy() }
	var pod *core.Pod
	var node *core.Node
	var secret *core.Secret
	if b.Pod != nil {
		pod = &core.Pod{ObjectMeta: meta(b.Pod.ObjectMeta)}
	}
	if b.Node != nil {
		node = &core.Node{ObjectMeta: meta(b.Node.ObjectMeta)}
	}
	if b.Secret != nil {
		secret = &core.Secret{ObjectMeta: meta(b.Secret.ObjectMeta)}
	}
	pc, pr, err := upstream.Claims(core.ServiceAccount{ObjectMeta: meta(dAcct.ObjectMeta)}, pod, secret, node, exp, 0, auds)
	if err != nil {
		t.Fatal(err)
	}
	// Upstream stamps time.Now(); the case's issue time replaces it.
	d := time.Duration(exp) * time.Second
	pc.IssuedAt, pc.NotBefore, pc.Expiry = jwt.NewNumericDate(iat), jwt.NewNumericDate(iat), jwt.NewNumericDate(iat.Add(d))
	pc.ID = "jti-1"
	tok, err := g.GenerateToken(context.Background(), pc, pr)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

type authnResult struct {
	OK     bool
	Err    string
	User   string
	UID    string
	Groups []string
	Extra  map[string][]string
	Auds   []string
}

func authnOutcome(a authenticator.Token, ctx context.Context, token string) authnResult {
	resp, ok, err := a.AuthenticateToken(ctx, token)
	r := authnResult{OK: ok}
	if err != nil {
		r.Err = err.Error()
	}
	if resp != nil && resp.User != nil {
		r.User, r.UID, r.Groups, r.Extra = resp.User.GetName(), resp.User.GetUID(), resp.User.GetGroups(), resp.User.GetExtra()
		r.Auds = resp.Audiences
	}
	return r
}

// TestServiceAccountTokens: tokens made by our generator and by
// upstream's (JWTTokenGenerator + Claims) are judged the same by our
// authenticator and upstream's JWTTokenAuthenticator (bound and legacy
// validators, with lookup): same success, user, groups, extra and
// audiences, same error text, for good tokens and bad ones (wrong
// audience, expired, wrong key, deleted or re-created bound objects, a
// ServiceAccount re-created).
func TestServiceAccountTokens(t *testing.T) {
	rsaKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	ecKey, _ := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	otherKey, _ := rsa.GenerateKey(rand.Reader, 2048)
	now := time.Now()
	auds := []string{saIssuer}

	type env struct {
		objs    func(saObjects)
		reqAuds []string
		verify  []interface{} // verification keys (default: the signing key)
	}
	cases := []struct {
		name string
		key  interface{}
		b    svcsa.Bound
		auds []string
		iat  time.Duration
		exp  int64
		env  env
	}{
		{name: "plain", key: rsaKey, auds: auds, exp: 3600},
		{name: "ecdsa P-384", key: ecKey, auds: auds, exp: 3600},
		{name: "pod with node", key: rsaKey, b: svcsa.Bound{Pod: dPod, Node: dNode}, auds: auds, exp: 3600},
		{name: "pod only", key: rsaKey, b: svcsa.Bound{Pod: dPod}, auds: auds, exp: 3600},
		{name: "secret", key: rsaKey, b: svcsa.Bound{Secret: dSecret}, auds: auds, exp: 3600},
		{name: "node", key: rsaKey, b: svcsa.Bound{Node: dNode}, auds: auds, exp: 3600},
		{name: "two audiences, one asked", key: rsaKey, auds: []string{"vault", saIssuer}, exp: 3600, env: env{reqAuds: []string{"vault"}}},
		{name: "wrong audience", key: rsaKey, auds: []string{"vault"}, exp: 3600},
		{name: "no audience", key: rsaKey, exp: 3600},
		{name: "expired", key: rsaKey, auds: auds, iat: -2 * time.Hour, exp: 3600},
		{name: "within the leeway", key: rsaKey, auds: auds, iat: -time.Hour - 30*time.Second, exp: 3600},
		{name: "not yet valid", key: rsaKey, auds: auds, iat: 5 * time.Minute, exp: 3600},
		{name: "wrong key", key: rsaKey, auds: auds, exp: 3600, env: env{verify: []interface{}{otherKey}}},
		{name: "one of several keys", key: rsaKey, auds: auds, exp: 3600, env: env{verify: []interface{}{otherKey, rsaKey}}},
		{name: "bound pod deleted", key: rsaKey, b: svcsa.Bound{Pod: dPod}, auds: auds, exp: 3600,
			env: env{objs: func(o saObjects) { delete(o, "pod/ns/p") }}},
		{name: "bound pod re-created", key: rsaKey, b: svcsa.Bound{Pod: dPod}, auds: auds, exp: 3600,
			env: env{objs: func(o saObjects) { p := dPod.DeepCopy(); p.UID = "new"; o["pod/ns/p"] = p }}},
		{name: "bound pod terminating", key: rsaKey, b: svcsa.Bound{Pod: dPod}, auds: auds, exp: 3600,
			env: env{objs: func(o saObjects) {
				p := dPod.DeepCopy()
				p.DeletionTimestamp = &metav1.Time{Time: now.Add(-5 * time.Minute)}
				o["pod/ns/p"] = p
			}}},
		{name: "bound secret deleted", key: rsaKey, b: svcsa.Bound{Secret: dSecret}, auds: auds, exp: 3600,
			env: env{objs: func(o saObjects) { delete(o, "secret/ns/s") }}},
		{name: "bound node deleted", key: rsaKey, b: svcsa.Bound{Node: dNode}, auds: auds, exp: 3600,
			env: env{objs: func(o saObjects) { delete(o, "node/n1") }}},
		{name: "pod-bound token, node deleted", key: rsaKey, b: svcsa.Bound{Pod: dPod, Node: dNode}, auds: auds, exp: 3600,
			env: env{objs: func(o saObjects) { delete(o, "node/n1") }}},
		{name: "service account re-created", key: rsaKey, auds: auds, exp: 3600,
			env: env{objs: func(o saObjects) { a := dAcct.DeepCopy(); a.UID = "other"; o["sa/ns/robot"] = a }}},
		{name: "service account deleted", key: rsaKey, auds: auds, exp: 3600,
			env: env{objs: func(o saObjects) { delete(o, "sa/ns/robot") }}},
	}
	// The cases that authenticate; the others fail, with the same error.
	good := map[string]bool{"plain": true, "ecdsa P-384": true, "pod with node": true, "pod only": true, "secret": true,
		"node": true, "two audiences, one asked": true, "no audience": true, "within the leeway": true,
		"one of several keys": true, "pod-bound token, node deleted": true}
	for _, maker := range []struct {
		name string
		make tokenMaker
	}{{"ours", oursMaker}, {"upstream", upstreamMaker}} {
		for _, tc := range cases {
			t.Run(maker.name+"/"+tc.name, func(t *testing.T) {
				token := maker.make(t, tc.key, tc.b, tc.auds, now.Add(tc.iat), tc.exp)
				objs := saObjects{"sa/ns/robot": dAcct, "pod/ns/p": dPod, "node/n1": dNode, "secret/ns/s": dSecret}
				if tc.env.objs != nil {
					tc.env.objs(objs)
				}
				verify := tc.env.verify
				if verify == nil {
					verify = []interface{}{tc.key}
				}
				ours, theirs := bothAuthenticators(t, verify, objs)
				ctx := context.Background()
				if tc.env.reqAuds != nil {
					ctx = authenticator.WithAudiences(ctx, tc.env.reqAuds)
				}
				got, want := authnOutcome(ours, ctx, token), authnOutcome(theirs, ctx, token)
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("ours:     %+v\nupstream: %+v", got, want)
				}
				if got.OK != good[tc.name] {
					t.Fatalf("authenticated: %v, want %v (%s)", got.OK, good[tc.name], got.Err)
				}
			})
		}
	}
	t.Run("same claims", func(t *testing.T) {
		for _, b := range []svcsa.Bound{{}, {Pod: dPod, Node: dNode}, {Secret: dSecret}, {Node: dNode}} {
			o, u := claimsOf(t, oursMaker(t, rsaKey, b, auds, now, 3600)), claimsOf(t, upstreamMaker(t, rsaKey, b, auds, now, 3600))
			if o != u {
				t.Fatalf("claims differ:\nours:     %s\nupstream: %s", o, u)
			}
		}
	})
}

// bothAuthenticators returns ours and upstream's bound + legacy token
// authenticators over the same keys and objects.
func bothAuthenticators(t *testing.T, verify []interface{}, objs saObjects) (authenticator.Token, authenticator.Token) {
	t.Helper()
	var ourKeys []svcsa.PublicKey
	for _, k := range verify {
		pk, err := svcsa.NewPublicKey(k)
		if err != nil {
			t.Fatal(err)
		}
		ourKeys = append(ourKeys, pk)
	}
	auds := authenticator.Audiences{saIssuer}
	ours := tokenunion.New(
		svcsa.NewJWTAuthenticator[svcsa.LegacyPrivateClaims]([]string{svcsa.LegacyIssuer}, ourKeys, auds, svcsa.NewLegacyValidator(objs, nil, clock.RealClock{})),
		svcsa.NewJWTAuthenticator[svcsa.PrivateClaims]([]string{saIssuer}, ourKeys, auds, svcsa.NewBoundValidator(objs, clock.RealClock{})))
	getter, err := upstream.StaticPublicKeysGetter(verify)
	if err != nil {
		t.Fatal(err)
	}
	legacy, err := upstream.NewLegacyValidator(true, objs, fake.NewClientset().CoreV1())
	if err != nil {
		t.Fatal(err)
	}
	theirs := tokenunion.New(
		upstream.JWTTokenAuthenticator([]string{upstream.LegacyIssuer}, getter, auds, legacy),
		upstream.JWTTokenAuthenticator([]string{saIssuer}, getter, auds, upstream.NewValidator(objs)))
	return ours, theirs
}

// claimsOf is a token's payload as sorted JSON.
func claimsOf(t *testing.T, token string) string {
	t.Helper()
	raw, err := base64.RawURLEncoding.DecodeString(strings.Split(token, ".")[1])
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]interface{}
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	out, _ := json.Marshal(m)
	return string(out)
}

// TestLegacyServiceAccountTokens: a Secret token made by our legacy
// generator (the token controller's) and one made by upstream's are judged
// the same by both authenticators: good while the Secret holds it, not
// once the Secret changes, is gone, or the ServiceAccount is re-created.
func TestLegacyServiceAccountTokens(t *testing.T) {
	key, _ := rsa.GenerateKey(rand.Reader, 2048)
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "robot-token", UID: "s"}}
	ourGen, _ := svcsa.NewGenerator(svcsa.LegacyIssuer, key)
	pc, pr := svcsa.LegacyClaims(dAcct, secret)
	ourTok, err := ourGen.GenerateToken(pc, pr)
	if err != nil {
		t.Fatal(err)
	}
	upGen, _ := upstream.JWTTokenGenerator(upstream.LegacyIssuer, key)
	upc, upr := upstream.LegacyClaims(*dAcct, *secret)
	upTok, err := upGen.GenerateToken(context.Background(), upc, upr)
	if err != nil {
		t.Fatal(err)
	}
	if o, u := claimsOf(t, ourTok), claimsOf(t, upTok); o != u {
		t.Fatalf("legacy claims differ:\nours:     %s\nupstream: %s", o, u)
	}
	for _, tok := range []struct{ name, token string }{{"ours", ourTok}, {"upstream", upTok}} {
		for _, tc := range []struct {
			name string
			objs func(o saObjects, token string)
		}{
			{"held by its secret", func(o saObjects, token string) {}},
			{"secret holds another", func(o saObjects, _ string) {
				s := o["secret/ns/robot-token"].(*corev1.Secret)
				s.Data["token"] = []byte("other")
			}},
			{"secret gone", func(o saObjects, _ string) { delete(o, "secret/ns/robot-token") }},
			{"service account re-created", func(o saObjects, _ string) {
				a := dAcct.DeepCopy()
				a.UID = "x"
				o["sa/ns/robot"] = a
			}},
		} {
			t.Run(fmt.Sprintf("%s/%s", tok.name, tc.name), func(t *testing.T) {
				s := secret.DeepCopy()
				s.Data = map[string][]byte{"token": []byte(tok.token)}
				objs := saObjects{"sa/ns/robot": dAcct, "secret/ns/robot-token": s}
				tc.objs(objs, tok.token)
				ours, theirs := bothAuthenticators(t, []interface{}{key}, objs)
				got, want := authnOutcome(ours, context.Background(), tok.token), authnOutcome(theirs, context.Background(), tok.token)
				sort.Strings(got.Groups)
				sort.Strings(want.Groups)
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("ours:     %+v\nupstream: %+v", got, want)
				}
				if got.OK != (tc.name == "held by its secret") {
					t.Fatalf("authenticated: %v (%s)", got.OK, got.Err)
				}
			})
		}
	}
}
