package pki

import (
	"crypto/tls"
	"crypto/x509"
	"slices"
	"testing"
	"time"
)

func TestClientPEM(t *testing.T) {
	ca, err := LoadOrCreateCA(t.TempDir(), "test-ca")
	if err != nil {
		t.Fatal(err)
	}
	certPEM, keyPEM, err := ca.ClientPEM("system:kube-scheduler", []string{"g1", "g2"}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(pair.Certificate[0])
	if err != nil {
		t.Fatal(err)
	}
	if cert.Subject.CommonName != "system:kube-scheduler" || !slices.Equal(cert.Subject.Organization, []string{"g1", "g2"}) {
		t.Errorf("subject %v", cert.Subject)
	}
	if cert.NotAfter.After(time.Now().Add(time.Hour)) || !ca.signed(cert) {
		t.Errorf("not after %v, signed by the CA %v", cert.NotAfter, ca.signed(cert))
	}
	roots := x509.NewCertPool()
	roots.AddCert(ca.Cert)
	if _, err := cert.Verify(x509.VerifyOptions{Roots: roots, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}); err != nil {
		t.Errorf("a client certificate the CA does not verify: %v", err)
	}
}

func TestServingPEM(t *testing.T) {
	ca, err := LoadOrCreateCA(t.TempDir(), "test-ca")
	if err != nil {
		t.Fatal(err)
	}
	certPEM, keyPEM, err := ca.ServingPEM("node-1", []string{"node-1", "192.0.2.7"}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(pair.Certificate[0])
	roots := x509.NewCertPool()
	roots.AddCert(ca.Cert)
	for _, host := range []string{"node-1", "192.0.2.7"} {
		if _, err := cert.Verify(x509.VerifyOptions{Roots: roots, DNSName: host}); err != nil {
			t.Errorf("%s: %v", host, err)
		}
	}
	if _, err := cert.Verify(x509.VerifyOptions{Roots: roots, DNSName: "node-2"}); err == nil {
		t.Error("verified for node-2")
	}
}
