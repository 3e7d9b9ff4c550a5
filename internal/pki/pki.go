package pki

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"slices"
	"time"

	certutil "k8s.io/client-go/util/cert"
	"k8s.io/client-go/util/keyutil"
)

const validity = 10 * 365 * 24 * time.Hour

// CA is a certificate authority that can sign certificates.
type CA struct {
	Cert     *x509.Certificate
	Key      crypto.Signer
	CertFile string
}

// LoadOrCreateCA loads ca.crt/ca.key from dir, creating them first if absent.
func LoadOrCreateCA(dir, commonName string) (*CA, error) {
	return LoadOrCreateNamedCA(dir, "ca", commonName)
}

// LoadOrCreateNamedCA loads <name>.crt/<name>.key from dir, creating them
// first if absent (kubeadm's front-proxy-ca beside the cluster's ca).
func LoadOrCreateNamedCA(dir, name, commonName string) (*CA, error) {
	certFile, keyFile := filepath.Join(dir, name+".crt"), filepath.Join(dir, name+".key")
	if cert, key, err := load(certFile, keyFile); err == nil {
		return &CA{Cert: cert, Key: key, CertFile: certFile}, nil
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber:          serial(),
		Subject:               pkix.Name{CommonName: commonName},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(validity),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		return nil, err
	}
	cert, _ := x509.ParseCertificate(der)
	if err := write(certFile, keyFile, der, key); err != nil {
		return nil, err
	}
	return &CA{Cert: cert, Key: key, CertFile: certFile}, nil
}

// EnsureServing makes sure dir/<name>.crt is a serving certificate signed by
// ca covering hosts (DNS names and IPs); it is (re)issued when missing or when
// it does not cover every host. It returns the certificate and key paths.
func (ca *CA) EnsureServing(dir, name string, hosts []string) (string, string, error) {
	certFile, keyFile := filepath.Join(dir, name+".crt"), filepath.Join(dir, name+".key")
	if cert, _, err := load(certFile, keyFile); err == nil && covers(cert, hosts) && ca.signed(cert) {
		return certFile, keyFile, nil
	}
	tmpl := &x509.Certificate{
		Subject:     pkix.Name{CommonName: "svcplane-apiserver"},
		KeyUsage:    x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	for _, h := range hosts {
		if ip := net.ParseIP(h); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else if h != "" {
			tmpl.DNSNames = append(tmpl.DNSNames, h)
		}
	}
	return certFile, keyFile, ca.issue(certFile, keyFile, tmpl)
}

// EnsureClient makes sure dir/<name>.crt is a client certificate for user
// (CN) in groups (O); it is reissued if the identity changed.
func (ca *CA) EnsureClient(dir, name, user string, groups []string) (string, string, error) {
	certFile, keyFile := filepath.Join(dir, name+".crt"), filepath.Join(dir, name+".key")
	if cert, _, err := load(certFile, keyFile); err == nil && cert.Subject.CommonName == user &&
		slices.Equal(cert.Subject.Organization, groups) && ca.signed(cert) {
		return certFile, keyFile, nil
	}
	tmpl := &x509.Certificate{
		Subject:     pkix.Name{CommonName: user, Organization: groups},
		KeyUsage:    x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	return certFile, keyFile, ca.issue(certFile, keyFile, tmpl)
}

// ClientPEM issues a client certificate for user (CN) in groups (O),
// valid for maxAge, kept in memory only: in-process components get their
// own identity without credentials on disk. It returns the certificate
// and key in PEM.
func (ca *CA) ClientPEM(user string, groups []string, maxAge time.Duration) (certPEM, keyPEM []byte, err error) {
	tmpl := &x509.Certificate{
		Subject:     pkix.Name{CommonName: user, Organization: groups},
		KeyUsage:    x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	der, key, err := ca.sign(tmpl, maxAge)
	if err != nil {
		return nil, nil, err
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, nil, err
	}
	return pemBlock(certutil.CertificateBlockType, der), pemBlock(keyutil.ECPrivateKeyBlockType, keyDER), nil
}

func (ca *CA) issue(certFile, keyFile string, tmpl *x509.Certificate) error {
	der, key, err := ca.sign(tmpl, validity)
	if err != nil {
		return err
	}
	return write(certFile, keyFile, der, key)
}

// sign makes a new key and tmpl's certificate for it, signed by the CA.
func (ca *CA) sign(tmpl *x509.Certificate, maxAge time.Duration) ([]byte, *ecdsa.PrivateKey, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	tmpl.SerialNumber = serial()
	tmpl.NotBefore = time.Now().Add(-time.Hour)
	tmpl.NotAfter = time.Now().Add(maxAge)
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.Cert, key.Public(), ca.Key)
	return der, key, err
}

func (ca *CA) signed(cert *x509.Certificate) bool {
	return cert.CheckSignatureFrom(ca.Cert) == nil
}

func covers(cert *x509.Certificate, hosts []string) bool {
	for _, h := range hosts {
		if h != "" && cert.VerifyHostname(h) != nil {
			return false
		}
	}
	return true
}

func load(certFile, keyFile string) (*x509.Certificate, crypto.Signer, error) {
	certs, err := certutil.CertsFromFile(certFile)
	if err != nil {
		if _, statErr := os.Stat(certFile); errors.Is(statErr, os.ErrNotExist) {
			return nil, nil, os.ErrNotExist
		}
		return nil, nil, err
	}
	key, err := keyutil.PrivateKeyFromFile(keyFile)
	if err != nil {
		return nil, nil, err
	}
	signer, ok := key.(crypto.Signer)
	if !ok {
		return nil, nil, fmt.Errorf("%s: not a signing key", keyFile)
	}
	return certs[0], signer, nil
}

func write(certFile, keyFile string, der []byte, key *ecdsa.PrivateKey) error {
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return err
	}
	keyPEM := pemBlock(keyutil.ECPrivateKeyBlockType, keyDER)
	if err := keyutil.WriteKey(keyFile, keyPEM); err != nil {
		return err
	}
	return certutil.WriteCert(certFile, pemBlock(certutil.CertificateBlockType, der))
}

func serial() *big.Int {
	n, _ := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	return n
}

// ServingPEM issues a serving certificate for hosts (DNS names and IPs),
// valid for maxAge, kept in memory only (a node's kubelet API when the
// agent holds the cluster CA). It returns the certificate and key in PEM.
func (ca *CA) ServingPEM(commonName string, hosts []string, maxAge time.Duration) (certPEM, keyPEM []byte, err error) {
	tmpl := &x509.Certificate{
		Subject:     pkix.Name{CommonName: commonName},
		KeyUsage:    x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	for _, h := range hosts {
		if ip := net.ParseIP(h); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else if h != "" {
			tmpl.DNSNames = append(tmpl.DNSNames, h)
		}
	}
	der, key, err := ca.sign(tmpl, maxAge)
	if err != nil {
		return nil, nil, err
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, nil, err
	}
	return pemBlock(certutil.CertificateBlockType, der), pemBlock(keyutil.ECPrivateKeyBlockType, keyDER), nil
}
