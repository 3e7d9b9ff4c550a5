package pki

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"time"

	certutil "k8s.io/client-go/util/cert"
	"k8s.io/client-go/util/keyutil"
)

// SelfSigned returns a PEM certificate and key for host, signed by itself and
// kept only in memory. The API server's loopback client trusts exactly this
// certificate. It is ECDSA P-256: generating it takes well under a
// millisecond, where the RSA-2048 key k8s.io/apiserver would make costs
// 0.1-0.5 s of start-up.
func SelfSigned(host string, maxAge time.Duration) (certPEM, keyPEM []byte, err error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          serial(),
		Subject:               pkix.Name{CommonName: host + "@" + now.Format("20060102150405")},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(maxAge),
		KeyUsage:              x509.KeyUsageKeyEncipherment | x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
		DNSNames:              []string{host},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		return nil, nil, err
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, nil, err
	}
	return pemBlock(certutil.CertificateBlockType, der), pemBlock(keyutil.ECPrivateKeyBlockType, keyDER), nil
}
