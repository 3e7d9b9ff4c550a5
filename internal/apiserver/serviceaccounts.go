package apiserver

import (
	"crypto"
	"time"

	"k8s.io/apiserver/pkg/authentication/authenticator"
	tokencache "k8s.io/apiserver/pkg/authentication/token/cache"
	tokenunion "k8s.io/apiserver/pkg/authentication/token/union"
	"k8s.io/apiserver/pkg/registry/rest"
	genericapiserver "k8s.io/apiserver/pkg/server"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	sa "github.com/svcplane/svcplane/internal/auth/serviceaccount"
	saregistry "github.com/svcplane/svcplane/internal/registry/core/serviceaccount"
)

// Token cache lifetimes: kube-apiserver's --token-auth cache defaults
// (successes 10 s, failures not cached), so a deleted bound object stops
// its tokens within 10 s.
const (
	saTokenSuccessTTL = 10 * time.Second
	saTokenFailureTTL = 0
)

// serviceAccountTokens is the server's ServiceAccount token setup: the
// signing key, the verification keys, issuers and API audiences.
type serviceAccountTokens struct {
	key       crypto.PrivateKey
	generator *sa.Generator
	keys      []sa.PublicKey
	issuers   []string
	audiences []string
	opts      ServiceAccountOptions
}

// loadServiceAccountTokens reads (or, without --service-account-signing-key-file,
// makes once) the signing key and reads the verification keys (the
// signing key's public half when no --service-account-key-file is given).
func loadServiceAccountTokens(o *Options) (*serviceAccountTokens, error) {
	s := o.ServiceAccounts
	keyFile, keyFiles := s.SigningKeyFile, s.KeyFiles
	if keyFile == "" {
		var err error
		if keyFile, _, err = sa.EnsureSigningKey(o.PKIDir()); err != nil {
			return nil, err
		}
	}
	if len(keyFiles) == 0 {
		keyFiles = []string{keyFile}
	}
	key, err := sa.ReadSigningKey(keyFile)
	if err != nil {
		return nil, err
	}
	gen, err := sa.NewGenerator(s.Issuers[0], key)
	if err != nil {
		return nil, err
	}
	keys, err := sa.ReadPublicKeys(keyFiles)
	if err != nil {
		return nil, err
	}
	return &serviceAccountTokens{key: key, generator: gen, keys: keys, issuers: s.Issuers,
		audiences: s.apiAudiences(), opts: s}, nil
}

// authenticator returns the bound and legacy token authenticators over
// the informers of f (the client reads what they do not have yet),
// successes cached for 10 s.
func (t *serviceAccountTokens) authenticator(client kubernetes.Interface, f informers.SharedInformerFactory) authenticator.Token {
	return tokencache.New(t.uncachedAuthenticator(client, f), false, saTokenSuccessTTL, saTokenFailureTTL)
}

// uncachedAuthenticator checks every token in full: the legacy and the
// bound authenticators.
func (t *serviceAccountTokens) uncachedAuthenticator(client kubernetes.Interface, f informers.SharedInformerFactory) authenticator.Token {
	getter := sa.NewGetter(client, f)
	clk := clock.RealClock{}
	bound := sa.NewJWTAuthenticator[sa.PrivateClaims](t.issuers, t.keys, t.audiences, sa.NewBoundValidator(getter, clk))
	legacy := sa.NewJWTAuthenticator[sa.LegacyPrivateClaims]([]string{sa.LegacyIssuer}, t.keys, t.audiences,
		sa.NewLegacyValidator(getter, client.CoreV1(), clk))
	return tokenunion.New(legacy, bound)
}

// tokenConfig is serviceaccounts/token's configuration.
func (t *serviceAccountTokens) tokenConfig() saregistry.TokenConfig {
	return saregistry.TokenConfig{
		Generator: t.generator, Audiences: t.audiences,
		MaxExpiration:         t.opts.MaxTokenExpiration,
		ExtendExpiration:      t.opts.ExtendTokenExpiration,
		MaxExtendedExpiration: sa.ExpirationExtensionSeconds * time.Second,
	}
}

// installOpenIDMetadata serves the issuer discovery documents (RBAC:
// system:service-account-issuer-discovery) when the first issuer is an
// https URL, as kube-apiserver.
func (t *serviceAccountTokens) installOpenIDMetadata(g *genericapiserver.GenericAPIServer, externalAddress string) {
	md, err := sa.NewOpenIDMetadata(t.issuers[0], t.opts.JWKSURI, externalAddress, t.keys)
	if err != nil {
		klog.InfoS("Service account issuer discovery not served", "issuer", t.issuers[0], "reason", err)
		return
	}
	g.Handler.NonGoRestfulMux.Handle(sa.OpenIDConfigPath, md.ConfigHandler())
	g.Handler.NonGoRestfulMux.Handle(sa.JWKSPath, md.KeysetHandler())
}

// wireTokenREST gives serviceaccounts/token the stores of the objects a
// token may be bound to, once every store exists.
func wireTokenREST(byResource map[string]map[string]rest.Storage) {
	tr, ok := byResource["serviceaccounts"]["serviceaccounts/token"].(*saregistry.TokenREST)
	if !ok {
		return
	}
	getter := func(resource string) rest.Getter {
		g, _ := byResource[resource][resource].(rest.Getter)
		return g
	}
	tr.Pods, tr.Secrets, tr.Nodes = getter("pods"), getter("secrets"), getter("nodes")
}
