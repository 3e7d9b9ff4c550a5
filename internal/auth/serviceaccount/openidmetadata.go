package serviceaccount

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rsa"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strconv"

	jose "gopkg.in/go-jose/go-jose.v2"
)

// The discovery paths (OpenID Connect Discovery 1.0).
const (
	OpenIDConfigPath = "/.well-known/openid-configuration"
	JWKSPath         = "/openid/v1/jwks"
)

// cacheMaxAge is what upstream's static keys advertise (seconds).
const cacheMaxAge = 3600

// OpenIDMetadata is the issuer's discovery document and key set, as
// kube-apiserver serves them.
type OpenIDMetadata struct {
	ConfigJSON, KeysetJSON []byte
}

type openIDConfig struct {
	Issuer        string   `json:"issuer"`
	JWKSURI       string   `json:"jwks_uri"`
	ResponseTypes []string `json:"response_types_supported"`
	SubjectTypes  []string `json:"subject_types_supported"`
	SigningAlgs   []string `json:"id_token_signing_alg_values_supported"`
}

// NewOpenIDMetadata builds the documents for issuer (an https URL without
// query or fragment), keys at jwksURI or, when empty, at
// https://<externalAddress>/openid/v1/jwks.
func NewOpenIDMetadata(issuer, jwksURI, externalAddress string, keys []PublicKey) (*OpenIDMetadata, error) {
	if issuer == "" {
		return nil, fmt.Errorf("empty issuer URL")
	}
	if jwksURI == "" && externalAddress == "" {
		return nil, fmt.Errorf("either the JWKS URI or the default external address, or both, must be set")
	}
	iss, err := url.Parse(issuer)
	switch {
	case err != nil:
		return nil, err
	case iss.Scheme != "https":
		return nil, fmt.Errorf("issuer URL must use https scheme, got: %s", issuer)
	case iss.RawQuery != "":
		return nil, fmt.Errorf("issuer URL may not include a query, got: %s", issuer)
	case iss.Fragment != "":
		return nil, fmt.Errorf("issuer URL may not include a fragment, got: %s", issuer)
	}
	if jwksURI == "" {
		jwksURI = (&url.URL{Scheme: "https", Host: externalAddress, Path: JWKSPath}).String()
	} else if u, err := url.Parse(jwksURI); err != nil {
		return nil, err
	} else if u.Scheme != "https" {
		return nil, fmt.Errorf("jwksURI requires https scheme, parsed as: %v", u.String())
	}
	if len(keys) == 0 {
		return nil, fmt.Errorf("no keys provided for validating keyset")
	}
	var set jose.JSONWebKeySet
	algs := map[string]bool{}
	for i, k := range keys {
		alg, err := algorithmOf(k.Key)
		if err != nil {
			return nil, fmt.Errorf("error constructing JWK for key #%d: %v", i, err)
		}
		set.Keys = append(set.Keys, jose.JSONWebKey{Algorithm: string(alg), Key: k.Key, KeyID: k.KeyID, Use: "sig"})
		algs[string(alg)] = true
	}
	sorted := make([]string, 0, len(algs))
	for a := range algs {
		sorted = append(sorted, a)
	}
	sort.Strings(sorted)
	cfg, err := json.Marshal(openIDConfig{Issuer: issuer, JWKSURI: jwksURI,
		ResponseTypes: []string{"id_token"}, SubjectTypes: []string{"public"}, SigningAlgs: sorted})
	if err != nil {
		return nil, err
	}
	ks, err := json.Marshal(set)
	if err != nil {
		return nil, err
	}
	return &OpenIDMetadata{ConfigJSON: cfg, KeysetJSON: ks}, nil
}

func algorithmOf(key crypto.PublicKey) (jose.SignatureAlgorithm, error) {
	switch k := key.(type) {
	case *rsa.PublicKey:
		return jose.RS256, nil
	case *ecdsa.PublicKey:
		switch k.Curve {
		case elliptic.P256():
			return jose.ES256, nil
		case elliptic.P384():
			return jose.ES384, nil
		case elliptic.P521():
			return jose.ES512, nil
		}
		return "", fmt.Errorf("unknown private key curve, must be 256, 384, or 521")
	}
	return "", fmt.Errorf("unknown public key type, must be *rsa.PublicKey, *ecdsa.PublicKey, or jose.OpaqueSigner")
}

// ConfigHandler serves the discovery document (GET only).
func (m *OpenIDMetadata) ConfigHandler() http.Handler {
	return serveJSON(m.ConfigJSON, "application/json")
}

// KeysetHandler serves the key set (GET only).
func (m *OpenIDMetadata) KeysetHandler() http.Handler {
	return serveJSON(m.KeysetJSON, "application/jwk-set+json")
}

func serveJSON(body []byte, contentType string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		w.Header().Set("Content-Type", contentType)
		w.Header().Set("Cache-Control", "public, max-age="+strconv.Itoa(cacheMaxAge))
		_, _ = w.Write(body)
	})
}
