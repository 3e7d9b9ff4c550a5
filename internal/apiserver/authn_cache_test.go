package apiserver

import (
	"crypto/tls"
	"crypto/x509"
	"net/http"
	"testing"
	"time"

	"k8s.io/apiserver/pkg/authentication/authenticator"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/server/dynamiccertificates"
)

type countingAuth struct {
	calls int
	ok    bool
}

func (c *countingAuth) AuthenticateRequest(*http.Request) (*authenticator.Response, bool, error) {
	c.calls++
	if !c.ok {
		return nil, false, nil
	}
	return &authenticator.Response{User: &user.DefaultInfo{Name: "alice"}}, true, nil
}

type fakeCA struct {
	dynamiccertificates.CAContentProvider
	bundle []byte
}

func (f *fakeCA) CurrentCABundleContent() []byte { return f.bundle }

func requestWith(cert *x509.Certificate) *http.Request {
	return &http.Request{TLS: &tls.ConnectionState{PeerCertificates: []*x509.Certificate{cert}}}
}

func TestCachedCertAuthenticator(t *testing.T) {
	now := time.Now()
	valid := &x509.Certificate{Raw: []byte("valid"), NotBefore: now.Add(-time.Hour), NotAfter: now.Add(time.Hour)}
	expired := &x509.Certificate{Raw: []byte("expired"), NotBefore: now.Add(-2 * time.Hour), NotAfter: now.Add(-time.Hour)}
	inner, ca := &countingAuth{ok: true}, &fakeCA{bundle: []byte("ca-1")}
	c := newCachedCertAuthenticator(inner, ca)

	for i := 0; i < 3; i++ {
		resp, ok, err := c.AuthenticateRequest(requestWith(valid))
		if !ok || err != nil || resp.User.GetName() != "alice" {
			t.Fatalf("request %d: %v %v %v", i, resp, ok, err)
		}
	}
	if inner.calls != 1 {
		t.Fatalf("chain verified %d times for one certificate, want 1", inner.calls)
	}
	ca.bundle = []byte("ca-2")
	c.AuthenticateRequest(requestWith(valid))
	if inner.calls != 2 {
		t.Fatal("a new CA bundle must force a fresh verification")
	}
	c.AuthenticateRequest(requestWith(expired))
	c.AuthenticateRequest(requestWith(expired))
	if inner.calls != 4 {
		t.Fatal("a certificate outside its validity must never come from the cache")
	}
	inner.ok = false
	other := &x509.Certificate{Raw: []byte("other"), NotBefore: now.Add(-time.Hour), NotAfter: now.Add(time.Hour)}
	for i := 0; i < 2; i++ {
		if _, ok, _ := c.AuthenticateRequest(requestWith(other)); ok {
			t.Fatal("a refused certificate was accepted")
		}
	}
	if inner.calls != 6 {
		t.Fatal("refusals must not be cached")
	}
}
