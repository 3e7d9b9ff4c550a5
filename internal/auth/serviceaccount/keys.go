package serviceaccount

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"k8s.io/client-go/util/keyutil"
)

// Key file names in the PKI directory, kubeadm's.
const (
	SigningKeyFile = "sa.key"
	PublicKeyFile  = "sa.pub"
)

// PublicKey is one verification key with its key ID.
type PublicKey struct {
	KeyID string
	Key   crypto.PublicKey
}

// KeyID is upstream's key ID of a public key: the unpadded base64url
// SHA-256 of its PKIX DER encoding.
func KeyID(pub crypto.PublicKey) (string, error) {
	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		return "", fmt.Errorf("failed to serialize public key to DER format: %v", err)
	}
	sum := sha256.Sum256(der)
	return base64.RawURLEncoding.EncodeToString(sum[:]), nil
}

// EnsureSigningKey returns the paths of <dir>/sa.key and <dir>/sa.pub,
// making them first when sa.key does not exist (RSA 2048, PKCS#1 key mode
// 0600, PKIX public key, as kubeadm does).
func EnsureSigningKey(dir string) (keyFile, pubFile string, err error) {
	keyFile, pubFile = filepath.Join(dir, SigningKeyFile), filepath.Join(dir, PublicKeyFile)
	if _, err := os.Stat(keyFile); err == nil {
		if _, err := os.Stat(pubFile); errors.Is(err, fs.ErrNotExist) {
			return keyFile, pubFile, writePublicKey(keyFile, pubFile)
		}
		return keyFile, pubFile, nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return "", "", err
	}
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return "", "", err
	}
	keyPEM := pem.EncodeToMemory(&pem.Block{Type: keyutil.RSAPrivateKeyBlockType, Bytes: x509.MarshalPKCS1PrivateKey(key)})
	if err := writeAtomic(keyFile, keyPEM, 0o600); err != nil {
		return "", "", err
	}
	return keyFile, pubFile, writePublicKey(keyFile, pubFile)
}

func writePublicKey(keyFile, pubFile string) error {
	key, err := ReadSigningKey(keyFile)
	if err != nil {
		return err
	}
	signer, ok := key.(crypto.Signer)
	if !ok {
		return fmt.Errorf("%s: not a signing key", keyFile)
	}
	der, err := x509.MarshalPKIXPublicKey(signer.Public())
	if err != nil {
		return err
	}
	return writeAtomic(pubFile, pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}), 0o644)
}

func writeAtomic(path string, data []byte, mode os.FileMode) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, mode); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// ReadSigningKey reads an RSA or ECDSA private key (PEM).
func ReadSigningKey(file string) (crypto.PrivateKey, error) {
	key, err := keyutil.PrivateKeyFromFile(file)
	if err != nil {
		return nil, err
	}
	switch key.(type) {
	case *rsa.PrivateKey, *ecdsa.PrivateKey:
		return key, nil
	}
	return nil, fmt.Errorf("unknown private key type %T, must be *rsa.PrivateKey, *ecdsa.PrivateKey, or jose.OpaqueSigner", key)
}

// ReadPublicKeys reads every public key of the files (public keys,
// private keys or certificates, as --service-account-key-file).
func ReadPublicKeys(files []string) ([]PublicKey, error) {
	var out []PublicKey
	for _, f := range files {
		keys, err := keyutil.PublicKeysFromFile(f)
		if err != nil {
			return nil, fmt.Errorf("failed to parse key file %q: %w", f, err)
		}
		for _, k := range keys {
			pk, err := NewPublicKey(k)
			if err != nil {
				return nil, err
			}
			out = append(out, pk)
		}
	}
	return out, nil
}

// NewPublicKey wraps a public key (or the public half of a private key)
// with its key ID.
func NewPublicKey(key interface{}) (PublicKey, error) {
	if s, ok := key.(interface{ Public() crypto.PublicKey }); ok {
		key = s.Public()
	}
	id, err := KeyID(key)
	if err != nil {
		return PublicKey{}, err
	}
	return PublicKey{KeyID: id, Key: key}, nil
}
