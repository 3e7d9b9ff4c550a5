package integration

import (
	"bytes"
	"context"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/svcplane/svcplane/internal/etcd"
	"github.com/svcplane/svcplane/test/integration/framework"
)

// TestRestartKeepsObjectsInKubernetesLayout stores objects, checks their
// etcd keys and protobuf encoding, restarts the server on the same data dir
// and finds them again; a ServiceAccount token minted before the restart
// still authenticates (the signing key is made once in <data-dir>/pki).
func TestRestartKeepsObjectsInKubernetesLayout(t *testing.T) {
	skipShort(t)
	dir := t.TempDir()
	s, err := framework.Start(dir)
	if err != nil {
		t.Fatal(err)
	}
	c := s.Client
	get(c.CoreV1().Services("default").Create(ctx, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "keep"},
		Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 80}}}}, metav1.CreateOptions{}))(t)
	get(c.CoreV1().Nodes().Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1"}}, metav1.CreateOptions{}))(t)
	get(c.CoreV1().ServiceAccounts("default").Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "keeper"}}, metav1.CreateOptions{}))(t)
	token := get(c.CoreV1().ServiceAccounts("default").CreateToken(ctx, "keeper", &authenticationv1.TokenRequest{}, metav1.CreateOptions{}))(t).Status.Token

	ec := etcdClient(t, dir)
	for _, key := range []string{"/registry/services/specs/default/keep", "/registry/minions/n1", "/registry/namespaces/kube-system"} {
		if v := etcdValue(t, ec, key); !bytes.HasPrefix(v, []byte("k8s\x00")) {
			t.Fatalf("etcd key %s is not protobuf-encoded: %q", key, v[:16])
		}
	}
	ec.Close()
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}

	s, err = framework.Start(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	svc := get(s.Client.CoreV1().Services("default").Get(ctx, "keep", metav1.GetOptions{}))(t)
	if svc.Spec.Ports[0].Port != 80 {
		t.Fatalf("service after restart: %+v", svc.Spec)
	}
	get(s.Client.CoreV1().Nodes().Get(ctx, "n1", metav1.GetOptions{}))(t)
	r := get(s.Client.AuthenticationV1().TokenReviews().Create(ctx,
		&authenticationv1.TokenReview{Spec: authenticationv1.TokenReviewSpec{Token: token}}, metav1.CreateOptions{}))(t)
	if !r.Status.Authenticated || r.Status.User.Username != "system:serviceaccount:default:keeper" {
		t.Fatalf("token minted before the restart: %+v", r.Status)
	}
}

// etcdClient connects to the embedded etcd of the server whose data dir is
// dir.
func etcdClient(t *testing.T, dir string) *clientv3.Client {
	t.Helper()
	ep, err := etcd.Endpoint(dir)
	if err != nil {
		t.Fatal(err)
	}
	ec, err := clientv3.New(clientv3.Config{Endpoints: []string{ep}, DialTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return ec
}

// etcdValue returns the value stored at key, failing the test if absent.
func etcdValue(t *testing.T, ec *clientv3.Client, key string) []byte {
	t.Helper()
	cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	resp, err := ec.Get(cctx, key)
	if err != nil || len(resp.Kvs) != 1 {
		t.Fatalf("etcd key %s: %v (%d kvs)", key, err, len(resp.Kvs))
	}
	return resp.Kvs[0].Value
}
