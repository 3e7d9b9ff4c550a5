package integration

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/svcplane/svcplane/test/integration/framework"
)

// encryptionConfig writes an EncryptionConfiguration for Secrets with the
// aescbc keys in order (the first encrypts), then identity (reads data
// written before encryption).
func encryptionConfig(t *testing.T, dir string, keys ...string) string {
	t.Helper()
	var ks []string
	for _, k := range keys {
		ks = append(ks, fmt.Sprintf(`{"name": %q, "secret": %q}`, k, aesKey(t, dir, k)))
	}
	cfg := fmt.Sprintf(`{"kind": "EncryptionConfiguration", "apiVersion": "apiserver.config.k8s.io/v1",
 "resources": [{"resources": ["secrets"], "providers": [{"aescbc": {"keys": [%s]}}, {"identity": {}}]}]}`, strings.Join(ks, ","))
	path := filepath.Join(dir, "encryption-"+strings.Join(keys, "-")+".json")
	noErr(t, os.WriteFile(path, []byte(cfg), 0o600))
	return path
}

// aesKey returns key name's 32 random bytes (base64), the same each call.
func aesKey(t *testing.T, dir, name string) string {
	t.Helper()
	path := filepath.Join(dir, "key-"+name)
	if b, err := os.ReadFile(path); err == nil {
		return string(b)
	}
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	k := base64.StdEncoding.EncodeToString(b)
	noErr(t, os.WriteFile(path, []byte(k), 0o600))
	return k
}

// TestEncryptionAtRest: a Secret written before encryption is read after
// it is turned on; a new one is stored encrypted (etcd holds the aescbc
// envelope, not the plaintext); after rotating to a new first key the old
// data reads, and a rewrite uses the new key.
func TestEncryptionAtRest(t *testing.T) {
	skipShort(t)
	dir, keys := t.TempDir(), t.TempDir()
	start := func(config string) *framework.Server {
		s, err := framework.StartWith(dir, func(o *framework.Options) { o.StorageSecurity.EncryptionProviderConfig = config })
		noErr(t, err)
		return s
	}
	secret := func(name, value string) *corev1.Secret {
		return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: name}, StringData: map[string]string{"password": value}}
	}
	raw := func(name string) []byte {
		ec := etcdClient(t, dir)
		defer ec.Close()
		return etcdValue(t, ec, "/registry/secrets/default/"+name)
	}
	read := func(s *framework.Server, name, want string) {
		t.Helper()
		got, err := s.Client.CoreV1().Secrets("default").Get(ctx, name, metav1.GetOptions{})
		noErr(t, err)
		if string(got.Data["password"]) != want {
			t.Fatalf("secret %s reads %q, want %q", name, got.Data["password"], want)
		}
	}

	s := start("")
	_, err := s.Client.CoreV1().Secrets("default").Create(ctx, secret("before", "plain-before-encryption"), metav1.CreateOptions{})
	noErr(t, err)
	if v := raw("before"); !bytes.Contains(v, []byte("plain-before-encryption")) {
		t.Fatalf("without encryption the value should be plain: %q", v)
	}
	noErr(t, s.Stop())

	s = start(encryptionConfig(t, keys, "key1"))
	read(s, "before", "plain-before-encryption")
	_, err = s.Client.CoreV1().Secrets("default").Create(ctx, secret("after", "top-secret-value"), metav1.CreateOptions{})
	noErr(t, err)
	v := raw("after")
	if !bytes.HasPrefix(v, []byte("k8s:enc:aescbc:v1:key1:")) || bytes.Contains(v, []byte("top-secret-value")) {
		t.Fatalf("stored Secret is not aescbc-encrypted with key1: %q", v[:min(len(v), 64)])
	}
	read(s, "after", "top-secret-value")
	noErr(t, s.Stop())

	s = start(encryptionConfig(t, keys, "key2", "key1"))
	defer s.Stop()
	read(s, "after", "top-secret-value")
	read(s, "before", "plain-before-encryption")
	cur, err := s.Client.CoreV1().Secrets("default").Get(ctx, "after", metav1.GetOptions{})
	noErr(t, err)
	cur.Labels = map[string]string{"rotated": "yes"}
	_, err = s.Client.CoreV1().Secrets("default").Update(ctx, cur, metav1.UpdateOptions{})
	noErr(t, err)
	if v := raw("after"); !bytes.HasPrefix(v, []byte("k8s:enc:aescbc:v1:key2:")) {
		t.Fatalf("rewritten Secret is not under key2: %q", v[:min(len(v), 64)])
	}
	read(s, "after", "top-secret-value")
}

// TestAuditLog: with a Metadata-level policy and --audit-log-path, a
// create is logged with its verb, resource, user and response code.
func TestAuditLog(t *testing.T) {
	skipShort(t)
	dir := t.TempDir()
	policy := filepath.Join(dir, "policy.yaml")
	noErr(t, os.WriteFile(policy, []byte("apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n"), 0o600))
	logPath := filepath.Join(dir, "audit.log")
	s, err := framework.StartWith("", func(o *framework.Options) {
		o.StorageSecurity.Audit.PolicyFile = policy
		o.StorageSecurity.Audit.LogOptions.Path = logPath
	})
	noErr(t, err)
	_, err = s.Client.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "audited"}}, metav1.CreateOptions{})
	noErr(t, err)
	noErr(t, s.Stop())
	b, err := os.ReadFile(logPath)
	noErr(t, err)
	for _, line := range bytes.Split(b, []byte("\n")) {
		var ev struct {
			Verb      string `json:"verb"`
			Stage     string `json:"stage"`
			ObjectRef struct{ Resource, Name string }
			User      struct{ Username string }
			Response  struct{ Code int } `json:"responseStatus"`
		}
		if json.Unmarshal(line, &ev) != nil {
			continue
		}
		if ev.Verb == "create" && ev.ObjectRef.Resource == "configmaps" && ev.ObjectRef.Name == "audited" &&
			ev.Stage == "ResponseComplete" && ev.User.Username == "kubernetes-admin" && ev.Response.Code == 201 {
			return
		}
	}
	t.Fatalf("no ResponseComplete create event for configmaps/audited by kubernetes-admin in the audit log:\n%s", b[:min(len(b), 2000)])
}
