package serviceaccount

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apiserver/pkg/authentication/authenticator"
	clocktesting "k8s.io/utils/clock/testing"
)

const issuer = "https://kubernetes.default.svc.cluster.local"

var apiAuds = authenticator.Audiences{issuer}

// fakeGetter holds objects by kind/namespace/name.
type fakeGetter = StaticGetter

var (
	acct   = &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "robot", UID: "sa-uid"}}
	pod    = &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "p", UID: "pod-uid"}, Spec: corev1.PodSpec{NodeName: "n1"}}
	node   = &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1", UID: "node-uid"}}
	secret = &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "s", UID: "secret-uid"}}
)

func objects() fakeGetter {
	return fakeGetter{"sa/ns/robot": acct, "pod/ns/p": pod, "node/n1": node, "secret/ns/s": secret}
}

func rsaKey(t *testing.T) *rsa.PrivateKey {
	t.Helper()
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func TestBoundTokens(t *testing.T) {
	key := rsaKey(t)
	ecKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	gen, err := NewGenerator(issuer, key)
	if err != nil {
		t.Fatal(err)
	}
	ecGen, _ := NewGenerator(issuer, ecKey)
	otherIssuer, _ := NewGenerator("https://elsewhere", key)
	pub, _ := NewPublicKey(key)
	ecPub, _ := NewPublicKey(ecKey)
	start := time.Unix(1_700_000_000, 0)
	clk := clocktesting.NewFakePassiveClock(start)

	mint := func(g *Generator, b Bound, auds []string) string {
		pc, pr, err := Claims(start, "jti-1", acct, b, 3600, 0, auds)
		if err != nil {
			t.Fatal(err)
		}
		tok, err := g.GenerateToken(pc, pr)
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	for _, tc := range []struct {
		name    string
		token   func() string
		objs    func(fakeGetter)
		at      time.Duration
		reqAuds authenticator.Audiences
		keys    []PublicKey
		ok      bool
		err     string
		extra   map[string]string
	}{
		{name: "plain", token: func() string { return mint(gen, Bound{}, apiAuds) }, ok: true,
			extra: map[string]string{"authentication.kubernetes.io/credential-id": "JTI=jti-1"}},
		{name: "ecdsa", token: func() string { return mint(ecGen, Bound{}, apiAuds) }, keys: []PublicKey{pub, ecPub}, ok: true},
		{name: "pod with node", token: func() string { return mint(gen, Bound{Pod: pod, Node: node}, apiAuds) }, ok: true,
			extra: map[string]string{"authentication.kubernetes.io/pod-name": "p", "authentication.kubernetes.io/pod-uid": "pod-uid",
				"authentication.kubernetes.io/node-name": "n1", "authentication.kubernetes.io/node-uid": "node-uid"}},
		{name: "pod deleted", token: func() string { return mint(gen, Bound{Pod: pod}, apiAuds) },
			objs: func(f fakeGetter) { delete(f, "pod/ns/p") }, err: "service account token has been invalidated"},
		{name: "pod recreated", token: func() string { return mint(gen, Bound{Pod: pod}, apiAuds) },
			objs: func(f fakeGetter) {
				p := pod.DeepCopy()
				p.UID = "new"
				f["pod/ns/p"] = p
			}, err: "pod UID (new) does not match service account pod ref claim (pod-uid)"},
		{name: "pod being deleted past the leeway", token: func() string { return mint(gen, Bound{Pod: pod}, apiAuds) },
			objs: func(f fakeGetter) {
				p := pod.DeepCopy()
				p.DeletionTimestamp = &metav1.Time{Time: start.Add(-2 * time.Minute)}
				f["pod/ns/p"] = p
			}, err: "service account token has been invalidated"},
		{name: "node bound, node gone", token: func() string { return mint(gen, Bound{Node: node}, apiAuds) },
			objs: func(f fakeGetter) { delete(f, "node/n1") }, err: "service account token has been invalidated"},
		{name: "pod-bound token ignores its node's absence", token: func() string { return mint(gen, Bound{Pod: pod, Node: node}, apiAuds) },
			objs: func(f fakeGetter) { delete(f, "node/n1") }, ok: true},
		{name: "secret bound", token: func() string { return mint(gen, Bound{Secret: secret}, apiAuds) }, ok: true},
		{name: "secret gone", token: func() string { return mint(gen, Bound{Secret: secret}, apiAuds) },
			objs: func(f fakeGetter) { delete(f, "secret/ns/s") }, err: "service account token has been invalidated"},
		{name: "service account recreated", token: func() string { return mint(gen, Bound{}, apiAuds) },
			objs: func(f fakeGetter) {
				a := acct.DeepCopy()
				a.UID = "other"
				f["sa/ns/robot"] = a
			}, err: "service account UID (other) does not match claim (sa-uid)"},
		{name: "service account gone", token: func() string { return mint(gen, Bound{}, apiAuds) },
			objs: func(f fakeGetter) { delete(f, "sa/ns/robot") }, err: `serviceaccounts "robot" not found`},
		{name: "expired", token: func() string { return mint(gen, Bound{}, apiAuds) }, at: 3600*time.Second + 2*time.Minute,
			err: "service account token has expired"},
		{name: "within the leeway", token: func() string { return mint(gen, Bound{}, apiAuds) }, at: 3600*time.Second + 30*time.Second, ok: true},
		{name: "not valid yet", token: func() string { return mint(gen, Bound{}, apiAuds) }, at: -2 * time.Minute,
			err: "service account token is not valid yet"},
		{name: "wrong audience", token: func() string { return mint(gen, Bound{}, []string{"vault"}) },
			err: `token audiences ["vault"] is invalid for the target audiences ["` + issuer + `"]`},
		{name: "audience asked for", token: func() string { return mint(gen, Bound{}, []string{"vault"}) },
			reqAuds: authenticator.Audiences{"vault"}, ok: true},
		{name: "other issuer is not ours", token: func() string { return mint(otherIssuer, Bound{}, apiAuds) }},
		{name: "wrong key", token: func() string { return mint(gen, Bound{}, apiAuds) }, keys: []PublicKey{ecPub},
			err: "invalid signature, no keys found"},
		{name: "not a JWT", token: func() string { return "abc.def" }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			objs := objects()
			if tc.objs != nil {
				tc.objs(objs)
			}
			clk.SetTime(start.Add(tc.at))
			keys := tc.keys
			if keys == nil {
				keys = []PublicKey{pub}
			}
			a := NewJWTAuthenticator[PrivateClaims]([]string{issuer}, keys, apiAuds, NewBoundValidator(objs, clk))
			ctx := context.Background()
			if tc.reqAuds != nil {
				ctx = authenticator.WithAudiences(ctx, tc.reqAuds)
			}
			resp, ok, err := a.AuthenticateToken(ctx, tc.token())
			if ok != tc.ok || (err == nil) != (tc.err == "") || (err != nil && err.Error() != tc.err) {
				t.Fatalf("got %v, %v; want %v, %q", ok, err, tc.ok, tc.err)
			}
			if !ok {
				return
			}
			u := resp.User
			if u.GetName() != "system:serviceaccount:ns:robot" || u.GetUID() != "sa-uid" ||
				strings.Join(u.GetGroups(), ",") != "system:serviceaccounts,system:serviceaccounts:ns" {
				t.Fatalf("user: %+v", u)
			}
			for k, v := range tc.extra {
				if got := strings.Join(u.GetExtra()[k], ","); got != v {
					t.Errorf("extra %s = %q, want %q", k, got, v)
				}
			}
		})
	}
}

func TestClaimsJSON(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	pc, pr, err := Claims(now, "id", acct, Bound{Pod: pod, Node: node}, WarnOnlyBoundTokenExpirationSeconds, 3607, []string{"a"})
	if err != nil {
		t.Fatal(err)
	}
	gen, _ := NewGenerator(issuer, rsaKey(t))
	tok, err := gen.GenerateToken(pc, pr)
	if err != nil {
		t.Fatal(err)
	}
	var payload map[string]interface{}
	part := strings.Split(tok, ".")[1]
	raw, _ := base64Decode(part)
	if err := json.Unmarshal(raw, &payload); err != nil {
		t.Fatal(err)
	}
	want := `{"aud":["a"],"exp":1700003607,"iat":1700000000,"iss":"` + issuer + `","jti":"id",` +
		`"kubernetes.io":{"namespace":"ns","node":{"name":"n1","uid":"node-uid"},"pod":{"name":"p","uid":"pod-uid"},` +
		`"serviceaccount":{"name":"robot","uid":"sa-uid"},"warnafter":1700003607},"nbf":1700000000,"sub":"system:serviceaccount:ns:robot"}`
	got, _ := json.Marshal(payload)
	if string(got) != want {
		t.Fatalf("claims:\n got %s\nwant %s", got, want)
	}
	if _, _, err := Claims(now, "", acct, Bound{Pod: pod, Secret: secret}, 600, 0, nil); err == nil {
		t.Fatal("a token bound to a pod and a secret")
	}
}

func TestLegacyTokens(t *testing.T) {
	key := rsaKey(t)
	gen, _ := NewGenerator(LegacyIssuer, key)
	pub, _ := NewPublicKey(key)
	clk := clocktesting.NewFakePassiveClock(time.Unix(1_700_000_000, 0))
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "robot-token", UID: "s"}}
	pc, pr := LegacyClaims(acct, s)
	tok, err := gen.GenerateToken(pc, pr)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		data string
		gone bool
		err  string
	}{
		{name: "matches", data: tok},
		{name: "secret holds another token", data: "x", err: "Token does not match server's copy"},
		{name: "secret gone", gone: true, err: "Token has been invalidated"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			objs := fakeGetter{"sa/ns/robot": acct}
			if !tc.gone {
				c := s.DeepCopy()
				c.Data = map[string][]byte{"token": []byte(tc.data)}
				objs["secret/ns/robot-token"] = c
			}
			a := NewJWTAuthenticator[LegacyPrivateClaims]([]string{LegacyIssuer}, []PublicKey{pub}, apiAuds, NewLegacyValidator(objs, nil, clk))
			resp, ok, err := a.AuthenticateToken(context.Background(), tok)
			if (err == nil) != (tc.err == "") || (err != nil && err.Error() != tc.err) {
				t.Fatalf("got %v, %v; want %q", ok, err, tc.err)
			}
			if tc.err == "" && (!ok || resp.User.GetName() != "system:serviceaccount:ns:robot" ||
				strings.Join(resp.Audiences, ",") != issuer) {
				t.Fatalf("got %+v, %v", resp, ok)
			}
		})
	}
}

func TestEnsureSigningKey(t *testing.T) {
	dir := t.TempDir()
	keyFile, pubFile, err := EnsureSigningKey(dir)
	if err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(keyFile); err != nil || fi.Mode().Perm() != 0o600 || filepath.Base(keyFile) != "sa.key" {
		t.Fatalf("sa.key: %v %v", fi, err)
	}
	first, _ := os.ReadFile(keyFile)
	if _, _, err := EnsureSigningKey(dir); err != nil {
		t.Fatal(err)
	}
	again, _ := os.ReadFile(keyFile)
	if string(first) != string(again) {
		t.Fatal("the key was made again")
	}
	priv, err := ReadSigningKey(keyFile)
	if err != nil {
		t.Fatal(err)
	}
	fromPriv, _ := NewPublicKey(priv)
	keys, err := ReadPublicKeys([]string{pubFile, keyFile})
	if err != nil || len(keys) != 2 || keys[0].KeyID != fromPriv.KeyID || keys[1].KeyID != fromPriv.KeyID {
		t.Fatalf("public keys: %v %v", keys, err)
	}
}

func TestOpenIDMetadata(t *testing.T) {
	pub, _ := NewPublicKey(rsaKey(t))
	md, err := NewOpenIDMetadata(issuer, "", "10.0.0.1:6443", []PublicKey{pub})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"issuer":"` + issuer + `","jwks_uri":"https://10.0.0.1:6443/openid/v1/jwks","response_types_supported":["id_token"],` +
		`"subject_types_supported":["public"],"id_token_signing_alg_values_supported":["RS256"]}`
	if string(md.ConfigJSON) != want {
		t.Fatalf("config:\n got %s\nwant %s", md.ConfigJSON, want)
	}
	rec := httptest.NewRecorder()
	md.KeysetHandler().ServeHTTP(rec, httptest.NewRequest("GET", JWKSPath, nil))
	if rec.Header().Get("Content-Type") != "application/jwk-set+json" || rec.Header().Get("Cache-Control") != "public, max-age=3600" ||
		!strings.Contains(rec.Body.String(), `"kid":"`+pub.KeyID+`"`) || !strings.Contains(rec.Body.String(), `"use":"sig"`) {
		t.Fatalf("jwks: %v %s", rec.Header(), rec.Body)
	}
	rec = httptest.NewRecorder()
	md.ConfigHandler().ServeHTTP(rec, httptest.NewRequest("POST", OpenIDConfigPath, nil))
	if rec.Code != 405 {
		t.Fatalf("POST: %d", rec.Code)
	}
	for _, bad := range []string{"kubernetes/serviceaccount", "http://x", "https://x?q=1"} {
		if _, err := NewOpenIDMetadata(bad, "", "h", []PublicKey{pub}); err == nil {
			t.Errorf("issuer %q accepted", bad)
		}
	}
}

func base64Decode(s string) ([]byte, error) { return base64.RawURLEncoding.DecodeString(s) }
