package apiserver

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	cliflag "k8s.io/component-base/cli/flag"

	"github.com/svcplane/svcplane/internal/auth/serviceaccount"
)

// DefaultServiceAccountIssuer is kubeadm's --service-account-issuer.
const DefaultServiceAccountIssuer = "https://kubernetes.default.svc.cluster.local"

// ServiceAccountOptions are kube-apiserver's ServiceAccount token flags.
type ServiceAccountOptions struct {
	// SigningKeyFile signs tokens; empty: <data-dir>/pki/sa.key, made
	// once (kubeadm's).
	SigningKeyFile string
	// KeyFiles verify tokens; empty: the signing key's public half.
	KeyFiles []string
	// Issuers: the first signs, all are accepted.
	Issuers []string
	// JWKSURI overrides the jwks_uri of the discovery document.
	JWKSURI string
	// APIAudiences: empty means the issuers.
	APIAudiences []string
	// MaxTokenExpiration shortens longer TokenRequests (0: no limit).
	MaxTokenExpiration time.Duration
	// ExtendTokenExpiration: kubelet's projected tokens (3607 s, default
	// audiences) live a year, with warnafter at the asked time.
	ExtendTokenExpiration bool
}

// NewServiceAccountOptions returns kubeadm's and kube-apiserver's defaults.
func NewServiceAccountOptions() ServiceAccountOptions {
	return ServiceAccountOptions{Issuers: []string{DefaultServiceAccountIssuer}, ExtendTokenExpiration: true}
}

func (o *Options) addServiceAccountFlags(fss *cliflag.NamedFlagSets) {
	s := &o.ServiceAccounts
	fs := fss.FlagSet("authentication")
	fs.StringSliceVar(&o.ServiceAccounts.APIAudiences, "api-audiences", s.APIAudiences, ""+
		"Identifiers of the API. The service account token authenticator will validate that "+
		"tokens used against the API are bound to at least one of these audiences. If the "+
		"--service-account-issuer flag is configured and this flag is not, this field "+
		"defaults to a single element list containing the issuer URL.")
	fs.StringArrayVar(&s.KeyFiles, "service-account-key-file", s.KeyFiles, ""+
		"File containing PEM-encoded x509 RSA or ECDSA private or public keys, used to verify "+
		"ServiceAccount tokens. The specified file can contain multiple keys, and the flag can "+
		"be specified multiple times with different files. If unspecified, "+
		"--service-account-signing-key-file is used.")
	fs.StringArrayVar(&s.Issuers, "service-account-issuer", s.Issuers, ""+
		"Identifier of the service account token issuer. The issuer will assert this identifier "+
		"in \"iss\" claim of issued tokens. This value is a string or URI. When this flag is specified "+
		"multiple times, the first is used to generate tokens and all are used to determine which "+
		"issuers are accepted. (svcplane's default is kubeadm's "+DefaultServiceAccountIssuer+".)")
	fs.StringVar(&s.JWKSURI, "service-account-jwks-uri", s.JWKSURI, ""+
		"Overrides the URI for the JSON Web Key Set in the discovery doc served at "+
		"/.well-known/openid-configuration.")
	fs.DurationVar(&s.MaxTokenExpiration, "service-account-max-token-expiration", s.MaxTokenExpiration, ""+
		"The maximum validity duration of a token created by the service account token issuer. If an otherwise valid "+
		"TokenRequest with a validity duration larger than this value is requested, a token will be issued with a validity duration of this value.")
	fs.BoolVar(&s.ExtendTokenExpiration, "service-account-extend-token-expiration", s.ExtendTokenExpiration, ""+
		"Turns on projected service account expiration extension during token generation, "+
		"which helps safe transition from legacy token to bound service account token feature. "+
		"If this flag is enabled, admission injected tokens would be extended up to 1 year to "+
		"prevent unexpected failure during transition, ignoring value of service-account-max-token-expiration.")
	fs.StringVar(&s.SigningKeyFile, "service-account-signing-key-file", s.SigningKeyFile, ""+
		"Path to the file that contains the current private key of the service account token issuer. The issuer will sign issued ID tokens with this private key. "+
		"(svcplane: empty uses <data-dir>/pki/sa.key, generated once.)")
}

// validateServiceAccounts checks the flags with kube-apiserver's messages.
func (o *Options) validateServiceAccounts() []error {
	s := o.ServiceAccounts
	var errs []error
	seen := map[string]bool{}
	for _, issuer := range s.Issuers {
		if strings.Contains(issuer, ":") {
			if _, err := url.Parse(issuer); err != nil {
				errs = append(errs, fmt.Errorf("service-account-issuer %q contained a ':' but was not a valid URL: %v", issuer, err))
				continue
			}
		}
		if issuer == "" {
			errs = append(errs, fmt.Errorf("service-account-issuer should not be an empty string"))
			continue
		}
		if seen[issuer] {
			errs = append(errs, fmt.Errorf("service-account-issuer %q is already specified", issuer))
			continue
		}
		seen[issuer] = true
	}
	if len(s.Issuers) == 0 {
		errs = append(errs, errors.New("service-account-issuer is a required flag"))
	}
	if s.JWKSURI != "" {
		if u, err := url.Parse(s.JWKSURI); err != nil {
			errs = append(errs, fmt.Errorf("service-account-jwks-uri must be a valid URL: %v", err))
		} else if u.Scheme != "https" {
			errs = append(errs, fmt.Errorf("service-account-jwks-uri requires https scheme, parsed as: %v", u.String()))
		}
	}
	if m := s.MaxTokenExpiration; m != 0 && (m < time.Hour || m > time.Duration(1<<32)*time.Second) {
		errs = append(errs, fmt.Errorf("the service-account-max-token-expiration must be between 1 hour and 2^32 seconds"))
	}
	if s.SigningKeyFile != "" {
		if _, err := serviceaccount.ReadSigningKey(s.SigningKeyFile); err != nil {
			errs = append(errs, fmt.Errorf("failed to parse service-account-issuer-key-file: %w", err))
		}
	}
	if s.SigningKeyFile == "" && len(s.KeyFiles) > 0 {
		// The generated sa.key would sign tokens these keys do not verify.
		errs = append(errs, errors.New("--service-account-signing-key-file, --service-account-issuer, and --api-audiences should be specified together"))
	}
	for _, f := range s.KeyFiles {
		if _, err := serviceaccount.ReadPublicKeys([]string{f}); err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}

// apiAudiences is --api-audiences, else the issuers.
func (s ServiceAccountOptions) apiAudiences() []string {
	if len(s.APIAudiences) > 0 {
		return s.APIAudiences
	}
	return s.Issuers
}
