package serviceaccount

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	"gopkg.in/go-jose/go-jose.v2/jwt"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/apiserver/pkg/audit"
	"k8s.io/apiserver/pkg/authentication/authenticator"
	apiserverserviceaccount "k8s.io/apiserver/pkg/authentication/serviceaccount"
)

// Validator checks a token's claims once its signature, issuer and
// audience are good, and says whom it names.
type Validator[P any] interface {
	Validate(ctx context.Context, tokenData string, public *jwt.Claims, private *P) (*apiserverserviceaccount.ServiceAccountInfo, error)
}

// JWTAuthenticator authenticates tokens of some issuers, as upstream's
// JWTTokenAuthenticator: tokens of other issuers (or not JWTs at all) are
// left to the other authenticators (false, no error).
type JWTAuthenticator[P any] struct {
	issuers      map[string]bool
	keys         []PublicKey
	implicitAuds authenticator.Audiences
	validator    Validator[P]
}

var _ authenticator.Token = &JWTAuthenticator[PrivateClaims]{}

// NewJWTAuthenticator returns an authenticator of tokens issued by
// issuers, signed by one of keys. implicitAuds (the API audiences) are
// what a token is checked against when the request names none, and what a
// token without audiences (legacy) stands for.
func NewJWTAuthenticator[P any](issuers []string, keys []PublicKey, implicitAuds authenticator.Audiences, v Validator[P]) *JWTAuthenticator[P] {
	m := map[string]bool{}
	for _, i := range issuers {
		m[i] = true
	}
	return &JWTAuthenticator[P]{issuers: m, keys: keys, implicitAuds: implicitAuds, validator: v}
}

// AuthenticateToken implements authenticator.Token.
func (j *JWTAuthenticator[P]) AuthenticateToken(ctx context.Context, tokenData string) (*authenticator.Response, bool, error) {
	if !j.hasCorrectIssuer(tokenData) {
		return nil, false, nil
	}
	tok, err := jwt.ParseSigned(tokenData)
	if err != nil {
		return nil, false, nil
	}
	var kid string
	for _, h := range tok.Headers {
		if h.KeyID != "" {
			kid = h.KeyID
			break
		}
	}
	keys := j.keysFor(kid)
	if len(keys) == 0 {
		return nil, false, fmt.Errorf("invalid signature, no keys found")
	}
	public, private := &jwt.Claims{}, new(P)
	var errs []error
	found := false
	for _, k := range keys {
		if err := tok.Claims(k.Key, public, private); err != nil {
			errs = append(errs, err)
			continue
		}
		found = true
		break
	}
	if !found {
		return nil, false, utilerrors.NewAggregate(errs)
	}
	if !j.issuers[public.Issuer] {
		return nil, false, fmt.Errorf("token issuer %q is invalid", public.Issuer)
	}
	tokenAuds := authenticator.Audiences(public.Audience)
	if len(tokenAuds) == 0 {
		audit.AddAuditAnnotation(ctx, "authentication.k8s.io/legacy-token", public.Subject)
		tokenAuds = j.implicitAuds
	}
	requested, ok := authenticator.AudiencesFrom(ctx)
	if !ok {
		requested = j.implicitAuds
	}
	auds := tokenAuds.Intersect(requested)
	if len(auds) == 0 && len(j.implicitAuds) != 0 {
		return nil, false, fmt.Errorf("token audiences %q is invalid for the target audiences %q", tokenAuds, requested)
	}
	sa, err := j.validator.Validate(ctx, tokenData, public, private)
	if err != nil {
		return nil, false, err
	}
	return &authenticator.Response{User: sa.UserInfo(), Audiences: auds}, true, nil
}

// keysFor returns the keys with ID kid, or every key for a token without one.
func (j *JWTAuthenticator[P]) keysFor(kid string) []PublicKey {
	if kid == "" {
		return j.keys
	}
	var out []PublicKey
	for _, k := range j.keys {
		if k.KeyID == kid {
			out = append(out, k)
		}
	}
	return out
}

// hasCorrectIssuer peeks at the unverified payload's iss, so tokens of
// other issuers cost no signature check.
func (j *JWTAuthenticator[P]) hasCorrectIssuer(tokenData string) bool {
	if strings.HasPrefix(strings.TrimSpace(tokenData), "{") {
		return false
	}
	parts := strings.Split(tokenData, ".")
	if len(parts) != 3 {
		return false
	}
	payload, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		return false
	}
	var claims struct {
		Issuer string `json:"iss"`
	}
	if err := json.Unmarshal(payload, &claims); err != nil {
		return false
	}
	return j.issuers[claims.Issuer]
}
