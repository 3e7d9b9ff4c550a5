package e2e

import (
	"context"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/svcplane/svcplane/internal/pki"
)

// TestServerOnTLSEtcd runs Debian's etcd with TLS and client-certificate
// authentication on loopback and `svcplane server` against it with
// kube-apiserver's --etcd-cafile/--etcd-certfile/--etcd-keyfile; without
// the client certificate the server cannot reach it.
func TestServerOnTLSEtcd(t *testing.T) {
	requireRoot(t)
	t.Parallel()
	dir := t.TempDir()
	ca, err := pki.LoadOrCreateCA(dir, "etcd-ca")
	noErr(t, err)
	serverCert, serverKey, err := ca.EnsureServing(dir, "etcd-server", []string{"127.0.0.1", "localhost"})
	noErr(t, err)
	clientCert, clientKey, err := ca.EnsureClient(dir, "etcd-client", "svcplane", nil)
	noErr(t, err)
	client := "https://127.0.0.1:" + strconv.Itoa(freePort(t))
	peer := "http://127.0.0.1:" + strconv.Itoa(freePort(t))
	startHost(t, "etcd", "--name", "e0", "--data-dir", filepath.Join(dir, "etcd"),
		"--listen-client-urls", client, "--advertise-client-urls", client,
		"--listen-peer-urls", peer, "--initial-advertise-peer-urls", peer, "--initial-cluster", "e0="+peer,
		"--cert-file", serverCert, "--key-file", serverKey, "--trusted-ca-file", ca.CertFile, "--client-cert-auth")

	s := &hostServer{t: t, dir: filepath.Join(dir, "server"), port: freePort(t), args: []string{"server",
		"--etcd-servers", client, "--etcd-cafile", ca.CertFile, "--etcd-certfile", clientCert, "--etcd-keyfile", clientKey,
		"--advertise-address", "10.203.0.61"}}
	s.start()
	_, err = s.client().CoreV1().ConfigMaps("default").Create(context.Background(),
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "over-tls"}}, metav1.CreateOptions{})
	noErr(t, err)

	// Without a client certificate etcd refuses the server: it never
	// becomes ready and says why.
	bad := startHost(t, bin, "server", "--data-dir", filepath.Join(dir, "nocert"), "--bind-address", "127.0.0.1",
		"--secure-port", strconv.Itoa(freePort(t)), "--etcd-servers", client, "--etcd-cafile", ca.CertFile)
	waitFor(t, "the server without a client certificate to report etcd's refusal", 60*time.Second, func() bool {
		log := bad.log.String()
		return strings.Contains(log, "bad certificate") || strings.Contains(log, "certificate required")
	})
}
