package serviceaccount

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rsa"
	"fmt"

	jose "gopkg.in/go-jose/go-jose.v2"
	"gopkg.in/go-jose/go-jose.v2/jwt"
)

// Generator signs tokens for one issuer with one private key.
type Generator struct {
	issuer string
	signer jose.Signer
}

// NewGenerator returns a generator signing as issuer with key (RSA:
// RS256; ECDSA: ES256/384/512 by curve), the key ID in the header.
func NewGenerator(issuer string, key crypto.PrivateKey) (*Generator, error) {
	var alg jose.SignatureAlgorithm
	var pub crypto.PublicKey
	switch k := key.(type) {
	case *rsa.PrivateKey:
		alg, pub = jose.RS256, &k.PublicKey
	case *ecdsa.PrivateKey:
		switch k.Curve {
		case elliptic.P256():
			alg = jose.ES256
		case elliptic.P384():
			alg = jose.ES384
		case elliptic.P521():
			alg = jose.ES512
		default:
			return nil, fmt.Errorf("unknown private key curve, must be 256, 384, or 521")
		}
		pub = &k.PublicKey
	default:
		return nil, fmt.Errorf("unknown private key type %T, must be *rsa.PrivateKey, *ecdsa.PrivateKey, or jose.OpaqueSigner", key)
	}
	kid, err := KeyID(pub)
	if err != nil {
		return nil, fmt.Errorf("failed to derive keyID: %v", err)
	}
	signer, err := jose.NewSigner(jose.SigningKey{
		Algorithm: alg,
		Key:       &jose.JSONWebKey{Algorithm: string(alg), Key: key, KeyID: kid, Use: "sig"},
	}, nil)
	if err != nil {
		return nil, fmt.Errorf("failed to create signer: %v", err)
	}
	return &Generator{issuer: issuer, signer: signer}, nil
}

// Issuer is the iss claim the generator writes.
func (g *Generator) Issuer() string { return g.issuer }

// GenerateToken signs the claims (private first, then public, then the
// issuer, as upstream merges them) into a compact JWS.
func (g *Generator) GenerateToken(public *jwt.Claims, private interface{}) (string, error) {
	return jwt.Signed(g.signer).Claims(private).Claims(public).Claims(&jwt.Claims{Issuer: g.issuer}).CompactSerialize()
}
