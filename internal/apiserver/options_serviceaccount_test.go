package apiserver

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestServiceAccountOptionsValidation(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(*ServiceAccountOptions)
		want   string
	}{
		{name: "defaults"},
		{name: "no issuer", change: func(s *ServiceAccountOptions) { s.Issuers = nil }, want: "service-account-issuer is a required flag"},
		{name: "empty issuer", change: func(s *ServiceAccountOptions) { s.Issuers = []string{""} }, want: "service-account-issuer should not be an empty string"},
		{name: "twice", change: func(s *ServiceAccountOptions) { s.Issuers = []string{"a", "a"} }, want: `service-account-issuer "a" is already specified`},
		{name: "bad URL", change: func(s *ServiceAccountOptions) { s.Issuers = []string{"https://a b:x"} }, want: `service-account-issuer "https://a b:x" contained a ':' but was not a valid URL`},
		{name: "max too short", change: func(s *ServiceAccountOptions) { s.MaxTokenExpiration = 30 * time.Minute }, want: "the service-account-max-token-expiration must be between 1 hour and 2^32 seconds"},
		{name: "jwks http", change: func(s *ServiceAccountOptions) { s.JWKSURI = "http://x/jwks" }, want: "service-account-jwks-uri requires https scheme, parsed as: http://x/jwks"},
		{name: "bad signing key", change: func(s *ServiceAccountOptions) { s.SigningKeyFile = "/nonexistent" }, want: "failed to parse service-account-issuer-key-file"},
		{name: "verification keys without a signing key", change: func(s *ServiceAccountOptions) {
			f := filepath.Join(t.TempDir(), "k.pub")
			_ = os.WriteFile(f, []byte("-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE6n3YjKvf1Qf0ohXJ2mFNp5KsFH1e\nXXYt6M3lG7aGjSx0d1MVdrpz8Q1AvAi3IfgeMkIqhzsgoc4j3I4tvfXfPQ==\n-----END PUBLIC KEY-----\n"), 0o600)
			s.KeyFiles = []string{f}
		}, want: "--service-account-signing-key-file, --service-account-issuer, and --api-audiences should be specified together"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := NewOptions()
			if tc.change != nil {
				tc.change(&o.ServiceAccounts)
			}
			err := o.Validate()
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want %q", err, tc.want)
			}
		})
	}
	o := NewOptions()
	if got := strings.Join(o.ServiceAccounts.apiAudiences(), ","); got != DefaultServiceAccountIssuer {
		t.Fatalf("default api audiences %q", got)
	}
}
