package serviceaccount

import (
	"fmt"
	"time"

	"gopkg.in/go-jose/go-jose.v2/jwt"
	corev1 "k8s.io/api/core/v1"
	apiserverserviceaccount "k8s.io/apiserver/pkg/authentication/serviceaccount"
)

// Upstream's expiration figures (pkg/serviceaccount/claims.go).
const (
	// WarnOnlyBoundTokenExpirationSeconds is the expiration kubelet asks
	// for in projected tokens; with the default audience it is extended
	// to ExpirationExtensionSeconds and warnafter records the real one.
	WarnOnlyBoundTokenExpirationSeconds = 60*60 + 7
	// ExpirationExtensionSeconds is one year.
	ExpirationExtensionSeconds = 24 * 365 * 60 * 60
)

// PrivateClaims are the kubernetes.io claims of a bound token.
type PrivateClaims struct {
	Kubernetes Kubernetes `json:"kubernetes.io,omitempty"`
}

// Kubernetes is what a bound token is about.
type Kubernetes struct {
	Namespace string           `json:"namespace,omitempty"`
	Svcacct   Ref              `json:"serviceaccount,omitempty"`
	Pod       *Ref             `json:"pod,omitempty"`
	Secret    *Ref             `json:"secret,omitempty"`
	Node      *Ref             `json:"node,omitempty"`
	WarnAfter *jwt.NumericDate `json:"warnafter,omitempty"`
}

// Ref names an object by name and UID.
type Ref struct {
	Name string `json:"name,omitempty"`
	UID  string `json:"uid,omitempty"`
}

// Bound is the object a token is bound to: a Pod (with its Node, whose
// claims are only informative), a Secret, or a Node alone.
type Bound struct {
	Pod    *corev1.Pod
	Secret *corev1.Secret
	Node   *corev1.Node
}

// Claims returns the claims of a token for sa issued at now with ID jti,
// valid for expirationSeconds, for audience; warnAfter (seconds, 0 for
// none) is when an extended token should have expired.
func Claims(now time.Time, jti string, sa *corev1.ServiceAccount, b Bound, expirationSeconds, warnAfter int64, audience []string) (*jwt.Claims, *PrivateClaims, error) {
	sc := &jwt.Claims{
		Subject:   apiserverserviceaccount.MakeUsername(sa.Namespace, sa.Name),
		Audience:  jwt.Audience(audience),
		IssuedAt:  jwt.NewNumericDate(now),
		NotBefore: jwt.NewNumericDate(now),
		Expiry:    jwt.NewNumericDate(now.Add(time.Duration(expirationSeconds) * time.Second)),
		ID:        jti,
	}
	pc := &PrivateClaims{Kubernetes: Kubernetes{
		Namespace: sa.Namespace,
		Svcacct:   Ref{Name: sa.Name, UID: string(sa.UID)},
	}}
	if b.Secret != nil && (b.Node != nil || b.Pod != nil) {
		return nil, nil, fmt.Errorf("internal error, token can only be bound to one object type")
	}
	switch {
	case b.Pod != nil:
		pc.Kubernetes.Pod = &Ref{Name: b.Pod.Name, UID: string(b.Pod.UID)}
		if b.Node != nil {
			pc.Kubernetes.Node = &Ref{Name: b.Node.Name, UID: string(b.Node.UID)}
		}
	case b.Secret != nil:
		pc.Kubernetes.Secret = &Ref{Name: b.Secret.Name, UID: string(b.Secret.UID)}
	case b.Node != nil:
		pc.Kubernetes.Node = &Ref{Name: b.Node.Name, UID: string(b.Node.UID)}
	}
	if warnAfter != 0 {
		pc.Kubernetes.WarnAfter = jwt.NewNumericDate(now.Add(time.Duration(warnAfter) * time.Second))
	}
	return sc, pc, nil
}

// LegacyIssuer is the issuer of Secret-based tokens.
const LegacyIssuer = "kubernetes/serviceaccount"

// LegacyPrivateClaims are the claims of a Secret-based token.
type LegacyPrivateClaims struct {
	ServiceAccountName string `json:"kubernetes.io/serviceaccount/service-account.name"`
	ServiceAccountUID  string `json:"kubernetes.io/serviceaccount/service-account.uid"`
	SecretName         string `json:"kubernetes.io/serviceaccount/secret.name"`
	Namespace          string `json:"kubernetes.io/serviceaccount/namespace"`
}

// LegacyClaims returns the claims of the token kept in secret for sa:
// no audience, no expiry.
func LegacyClaims(sa *corev1.ServiceAccount, secret *corev1.Secret) (*jwt.Claims, *LegacyPrivateClaims) {
	return &jwt.Claims{Subject: apiserverserviceaccount.MakeUsername(sa.Namespace, sa.Name)},
		&LegacyPrivateClaims{
			Namespace:          sa.Namespace,
			ServiceAccountName: sa.Name,
			ServiceAccountUID:  string(sa.UID),
			SecretName:         secret.Name,
		}
}
