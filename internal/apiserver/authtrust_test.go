package apiserver

import (
	"os"
	"strings"
	"testing"
	"time"

	certutil "k8s.io/client-go/util/cert"

	"github.com/svcplane/svcplane/internal/pki"
)

func caPEM(t *testing.T, name string) []byte {
	t.Helper()
	ca, err := pki.LoadOrCreateNamedCA(t.TempDir(), name, name)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(ca.CertFile)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestMergeAuthenticationTrust(t *testing.T) {
	now := time.Now()
	mine := authenticationTrust{
		clientCA: caPEM(t, "ca"), requestHeaderCA: caPEM(t, "front-proxy-ca"),
		usernameHeaders: []string{"X-Remote-User"}, groupHeaders: []string{"X-Remote-Group"},
		extraHeaderPrefixes: []string{"X-Remote-Extra-"}, allowedNames: []string{"front-proxy-client"},
	}
	got, err := mergeAuthenticationTrust(nil, mine, now)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"client-ca-file":                     string(mine.clientCA),
		"requestheader-client-ca-file":       string(mine.requestHeaderCA),
		"requestheader-username-headers":     `["X-Remote-User"]`,
		"requestheader-group-headers":        `["X-Remote-Group"]`,
		"requestheader-extra-headers-prefix": `["X-Remote-Extra-"]`,
		"requestheader-allowed-names":        `["front-proxy-client"]`,
	}
	if !equalStringMaps(got, want) {
		t.Fatalf("first publication:\n%v\nwant\n%v", got, want)
	}
	// Idempotent: merging again changes nothing.
	again, err := mergeAuthenticationTrust(got, mine, now)
	if err != nil || !equalStringMaps(again, got) {
		t.Fatalf("second merge changed the data (%v):\n%v", err, again)
	}
	// Another server's CA and names stay beside ours.
	other := authenticationTrust{clientCA: caPEM(t, "other-ca"), requestHeaderCA: caPEM(t, "other-proxy-ca"),
		usernameHeaders: []string{"X-Remote-User"}, allowedNames: []string{"other-proxy"}}
	both, err := mergeAuthenticationTrust(got, other, now)
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"client-ca-file", "requestheader-client-ca-file"} {
		certs, err := certutil.ParseCertsPEM([]byte(both[key]))
		if err != nil || len(certs) != 2 {
			t.Errorf("%s holds %d certificates (%v), want both servers'", key, len(certs), err)
		}
	}
	if both["requestheader-allowed-names"] != `["front-proxy-client","other-proxy"]` {
		t.Errorf("allowed names %s", both["requestheader-allowed-names"])
	}
	// Certificates expired for more than five minutes are dropped.
	later, err := mergeAuthenticationTrust(got, authenticationTrust{}, now.Add(20*365*24*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if len(later) != 0 {
		t.Errorf("expired CAs kept: %v", later)
	}
	// Without a request-header CA only the client CA is published.
	plain, err := mergeAuthenticationTrust(nil, authenticationTrust{clientCA: mine.clientCA}, now)
	if err != nil || len(plain) != 1 || plain["client-ca-file"] == "" {
		t.Errorf("no request-header CA: %v (%v)", plain, err)
	}
	if _, err := mergeAuthenticationTrust(map[string]string{"requestheader-client-ca-file": string(mine.requestHeaderCA),
		"requestheader-allowed-names": "not json"}, mine, now); err == nil || !strings.Contains(err.Error(), "requestheader-allowed-names") {
		t.Errorf("bad stored list: %v", err)
	}
}
