package integration

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	restclient "k8s.io/client-go/rest"

	"github.com/svcplane/svcplane/test/integration/framework"
)

func TestAuthentication(t *testing.T) {
	skipShort(t)
	dir := t.TempDir()
	tokens := filepath.Join(dir, "tokens.csv")
	if err := os.WriteFile(tokens, []byte("proxytoken,system:kube-proxy,uid1,\"system:node-proxier\"\nnobodytoken,nobody,uid2\nkubeproxyuser,system:kube-proxy,uid3\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := framework.StartWith(filepath.Join(dir, "data"), func(o *framework.Options) { o.TokenAuthFile = tokens })
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()

	// Anonymous (kube-apiserver's default --anonymous-auth): the public
	// info paths, nothing else.
	anon := restclient.AnonymousClientConfig(s.Config)
	ac := kubernetes.NewForConfigOrDie(anon)
	_, err = ac.CoreV1().Namespaces().List(ctx, metav1.ListOptions{})
	if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), `User "system:anonymous" cannot list resource "namespaces"`) {
		t.Fatalf("anonymous list: want 403 for system:anonymous, got %v", err)
	}
	for path, want := range map[string]int{"/healthz": 200, "/livez": 200, "/readyz": 200, "/version": 200, "/healthz/etcd": 403, "/api": 403, "/metrics": 403} {
		raw := ac.Discovery().RESTClient().Get().AbsPath(path).Do(ctx)
		var code int
		raw.StatusCode(&code)
		if code != want {
			t.Errorf("anonymous GET %s: %d, want %d (%v)", path, code, want, raw.Error())
		}
	}
	withToken := func(tok string) kubernetes.Interface {
		c := restclient.AnonymousClientConfig(s.Config)
		c.BearerToken = tok
		return kubernetes.NewForConfigOrDie(c)
	}
	proxy := withToken("proxytoken")
	if _, err := proxy.CoreV1().Services("").List(ctx, metav1.ListOptions{}); err != nil {
		t.Fatalf("node-proxier list services: %v", err)
	}
	_, err = proxy.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "x"}}, metav1.CreateOptions{})
	if !apierrors.IsForbidden(err) {
		t.Fatalf("node-proxier create configmap: want 403, got %v", err)
	}
	// kube-proxy's standard identity (user system:kube-proxy, no group),
	// bound to system:node-proxier by upstream's bootstrap policy.
	if _, err := withToken("kubeproxyuser").DiscoveryV1().EndpointSlices("").List(ctx, metav1.ListOptions{}); err != nil {
		t.Fatalf("system:kube-proxy list endpointslices: %v", err)
	}
	_, err = withToken("nobodytoken").CoreV1().Services("default").List(ctx, metav1.ListOptions{})
	if !apierrors.IsForbidden(err) {
		t.Fatalf("user without groups: want 403, got %v", err)
	}
	if _, err := withToken("wrongtoken").CoreV1().Services("").List(ctx, metav1.ListOptions{}); !apierrors.IsUnauthorized(err) {
		t.Fatalf("unknown token: want 401, got %v", err)
	}
	// Plain HTTP to the secure port is refused.
	if resp, err := http.Get("http" + s.URL[len("https"):] + "/healthz"); err == nil {
		resp.Body.Close()
		if resp.StatusCode < 400 {
			t.Fatalf("plain HTTP answered %d", resp.StatusCode)
		}
	}
}
