package integration

import (
	"encoding/json"
	"os/exec"
	"strings"
	"testing"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	restclient "k8s.io/client-go/rest"
)

// tokenClient is a client authenticating with a bearer token only.
func tokenClient(t *testing.T, token string) kubernetes.Interface {
	t.Helper()
	cfg := &restclient.Config{Host: server.Config.Host, BearerToken: token,
		TLSClientConfig: restclient.TLSClientConfig{CAFile: server.CA().CertFile}}
	return kubernetes.NewForConfigOrDie(cfg)
}

// review is the admin's TokenReview of token.
func review(t *testing.T, token string) authenticationv1.TokenReviewStatus {
	t.Helper()
	r := get(server.Client.AuthenticationV1().TokenReviews().Create(ctx,
		&authenticationv1.TokenReview{Spec: authenticationv1.TokenReviewSpec{Token: token}}, metav1.CreateOptions{}))(t)
	return r.Status
}

// TestServiceAccountTokens: `kubectl create token` prints a token that
// authenticates as system:serviceaccount:<ns>:default (TokenReview; the
// request gets RBAC's 403 until a RoleBinding to view, then lists pods in
// that namespace only); a token bound to a Pod stops authenticating (401)
// once the Pod is deleted; a legacy token Secret gets its token, ca.crt
// and namespace and authenticates; the ServiceAccount may read the
// issuer discovery documents.
func TestServiceAccountTokens(t *testing.T) {
	skipShort(t)
	admin := server.Client
	ns, other := newNamespace(t, admin), newNamespace(t, admin)
	eventually(t, "the default ServiceAccount", func() bool {
		_, err := admin.CoreV1().ServiceAccounts(ns).Get(ctx, "default", metav1.GetOptions{})
		return err == nil
	})
	acct := get(admin.CoreV1().ServiceAccounts(ns).Get(ctx, "default", metav1.GetOptions{}))(t)
	user := "system:serviceaccount:" + ns + ":default"

	kubectl, err := exec.LookPath("kubectl")
	if err != nil {
		t.Fatal("kubectl is not on PATH")
	}
	out, err := exec.Command(kubectl, "--kubeconfig", server.Kubeconfig, "create", "token", "default", "-n", ns).Output()
	if err != nil {
		t.Fatalf("kubectl create token: %v", err)
	}
	token := strings.TrimSpace(string(out))

	st := review(t, token)
	if !st.Authenticated || st.User.Username != user || st.User.UID != string(acct.UID) ||
		strings.Join(st.User.Groups, ",") != "system:serviceaccounts,system:serviceaccounts:"+ns+",system:authenticated" ||
		!strings.HasPrefix(strings.Join(st.User.Extra["authentication.kubernetes.io/credential-id"], ""), "JTI=") ||
		strings.Join(st.Audiences, ",") != "https://kubernetes.default.svc.cluster.local" {
		t.Fatalf("TokenReview of kubectl's token: %+v", st)
	}
	if st := review(t, token[:len(token)-4]+"AAAA"); st.Authenticated {
		t.Fatalf("a token with a broken signature authenticated: %+v", st)
	}

	sa := tokenClient(t, token)
	_, err = sa.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
	want := `pods is forbidden: User "` + user + `" cannot list resource "pods" in API group "" in the namespace "` + ns + `"`
	if !apierrors.IsForbidden(err) || err.Error() != want {
		t.Fatalf("before any binding: %v, want %s", err, want)
	}
	get(admin.RbacV1().RoleBindings(ns).Create(ctx, binding("sa-view", "view",
		rbacv1.Subject{Kind: "ServiceAccount", Name: "default", Namespace: ns}), metav1.CreateOptions{}))(t)
	eventually(t, "the ServiceAccount may list pods once bound to view", func() bool {
		_, err := sa.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
		return err == nil
	})
	if _, err := sa.CoreV1().Pods(other).List(ctx, metav1.ListOptions{}); !apierrors.IsForbidden(err) {
		t.Fatalf("pods of another namespace: %v, want 403", err)
	}

	// Issuer discovery: system:service-account-issuer-discovery is bound
	// to every ServiceAccount.
	cfg := get(sa.Discovery().RESTClient().Get().AbsPath("/.well-known/openid-configuration").DoRaw(ctx))(t)
	var doc map[string]interface{}
	noErr(t, json.Unmarshal(cfg, &doc))
	if doc["issuer"] != "https://kubernetes.default.svc.cluster.local" || !strings.HasSuffix(doc["jwks_uri"].(string), "/openid/v1/jwks") {
		t.Fatalf("openid-configuration: %s", cfg)
	}
	jwks := get(sa.Discovery().RESTClient().Get().AbsPath("/openid/v1/jwks").DoRaw(ctx))(t)
	if !strings.Contains(string(jwks), `"alg":"RS256"`) {
		t.Fatalf("jwks: %s", jwks)
	}

	t.Run("bound to a pod", func(t *testing.T) { testPodBoundToken(t, ns) })
	t.Run("legacy secret", func(t *testing.T) { testLegacyTokenSecret(t, ns, user) })
}

func testPodBoundToken(t *testing.T, ns string) {
	admin := server.Client
	pod := get(admin.CoreV1().Pods(ns).Create(ctx, &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "bound"},
		Spec: corev1.PodSpec{ServiceAccountName: "default",
			Containers: []corev1.Container{{Name: "c", Image: "registry.k8s.io/pause:3.10"}}},
	}, metav1.CreateOptions{}))(t)
	tr := get(admin.CoreV1().ServiceAccounts(ns).CreateToken(ctx, "default", &authenticationv1.TokenRequest{
		Spec: authenticationv1.TokenRequestSpec{BoundObjectRef: &authenticationv1.BoundObjectReference{
			Kind: "Pod", APIVersion: "v1", Name: pod.Name, UID: pod.UID}},
	}, metav1.CreateOptions{}))(t)
	token := tr.Status.Token
	st := review(t, token)
	if !st.Authenticated || strings.Join(st.User.Extra["authentication.kubernetes.io/pod-name"], "") != "bound" ||
		strings.Join(st.User.Extra["authentication.kubernetes.io/pod-uid"], "") != string(pod.UID) {
		t.Fatalf("TokenReview of a pod-bound token: %+v", st)
	}
	c := tokenClient(t, token)
	eventually(t, "the pod-bound token lists pods", func() bool {
		_, err := c.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
		return err == nil
	})
	zero := int64(0)
	noErr(t, admin.CoreV1().Pods(ns).Delete(ctx, pod.Name, metav1.DeleteOptions{GracePeriodSeconds: &zero}))
	eventually(t, "401 once the bound pod is deleted", func() bool {
		_, err := c.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
		return apierrors.IsUnauthorized(err)
	})
	if st := review(t, token); st.Authenticated || !strings.Contains(st.Error, "service account token has been invalidated") {
		t.Fatalf("TokenReview after the pod's deletion: %+v", st)
	}

	// A UID that does not match is a conflict, with upstream's text.
	_, err := admin.CoreV1().ServiceAccounts(ns).CreateToken(ctx, "default", &authenticationv1.TokenRequest{
		Spec: authenticationv1.TokenRequestSpec{BoundObjectRef: &authenticationv1.BoundObjectReference{
			Kind: "Secret", APIVersion: "v1", Name: "nope"}}}, metav1.CreateOptions{})
	if !apierrors.IsNotFound(err) {
		t.Fatalf("token bound to a missing secret: %v", err)
	}
	short := int64(60)
	_, err = admin.CoreV1().ServiceAccounts(ns).CreateToken(ctx, "default", &authenticationv1.TokenRequest{
		Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: &short}}, metav1.CreateOptions{})
	if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "spec.expirationSeconds: Invalid value: 60: may not specify a duration less than 10 minutes") {
		t.Fatalf("60 s token: %v", err)
	}
}

func testLegacyTokenSecret(t *testing.T, ns, user string) {
	admin := server.Client
	get(admin.CoreV1().Secrets(ns).Create(ctx, &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: "default-token", Annotations: map[string]string{corev1.ServiceAccountNameKey: "default"}},
		Type:       corev1.SecretTypeServiceAccountToken,
	}, metav1.CreateOptions{}))(t)
	var secret *corev1.Secret
	eventually(t, "the token Secret filled", func() bool {
		s, err := admin.CoreV1().Secrets(ns).Get(ctx, "default-token", metav1.GetOptions{})
		secret = s
		return err == nil && len(s.Data["token"]) > 0 && len(s.Data["ca.crt"]) > 0 && string(s.Data["namespace"]) == ns
	})
	token := string(secret.Data["token"])
	// The authenticator reads the Secret from the server's informer (as
	// kube-apiserver's), which may not have the filled copy yet.
	var st authenticationv1.TokenReviewStatus
	eventually(t, "the legacy token to authenticate", func() bool { st = review(t, token); return st.Authenticated })
	if st.User.Username != user {
		t.Fatalf("TokenReview of the legacy token: %+v", st)
	}
	if _, err := tokenClient(t, token).CoreV1().Pods(ns).List(ctx, metav1.ListOptions{}); err != nil {
		t.Fatalf("legacy token lists pods: %v", err)
	}
	noErr(t, admin.CoreV1().Secrets(ns).Delete(ctx, "default-token", metav1.DeleteOptions{}))
	eventually(t, "the legacy token stops once its Secret is gone", func() bool {
		return !review(t, token).Authenticated
	})
}

// TestNodeServiceAccountTokens: a node identity (Node authorizer and
// NodeRestriction) gets a token for the ServiceAccount of a pod bound to
// it, bound to that pod, carrying its node's claims; not one bound to
// nothing, nor for a pod of another node.
func TestNodeServiceAccountTokens(t *testing.T) {
	skipShort(t)
	admin := server.Client
	ns := newNamespace(t, admin)
	eventually(t, "the default ServiceAccount", func() bool {
		_, err := admin.CoreV1().ServiceAccounts(ns).Get(ctx, "default", metav1.GetOptions{})
		return err == nil
	})
	const name = "satoken-n1"
	node := get(admin.CoreV1().Nodes().Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{}))(t)
	other := get(admin.CoreV1().Nodes().Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "satoken-n2"}}, metav1.CreateOptions{}))(t)
	t.Cleanup(func() {
		_ = admin.CoreV1().Nodes().Delete(ctx, node.Name, metav1.DeleteOptions{})
		_ = admin.CoreV1().Nodes().Delete(ctx, other.Name, metav1.DeleteOptions{})
	})
	newPod := func(podName, nodeName string) *corev1.Pod {
		return get(admin.CoreV1().Pods(ns).Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: podName},
			Spec: corev1.PodSpec{NodeName: nodeName, ServiceAccountName: "default",
				Containers: []corev1.Container{{Name: "c", Image: "registry.k8s.io/pause:3.10"}}}}, metav1.CreateOptions{}))(t)
	}
	mine, theirs := newPod("mine", name), newPod("theirs", other.Name)
	nc := nodeClient(t, name)
	bound := func(p *corev1.Pod) *authenticationv1.TokenRequest {
		return &authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{BoundObjectRef: &authenticationv1.BoundObjectReference{
			Kind: "Pod", APIVersion: "v1", Name: p.Name, UID: p.UID}}}
	}
	var tr *authenticationv1.TokenRequest
	eventually(t, "the node gets a token bound to its pod", func() bool {
		var err error
		tr, err = nc.CoreV1().ServiceAccounts(ns).CreateToken(ctx, "default", bound(mine), metav1.CreateOptions{})
		return err == nil
	})
	st := review(t, tr.Status.Token)
	if !st.Authenticated || strings.Join(st.User.Extra["authentication.kubernetes.io/node-name"], "") != name ||
		strings.Join(st.User.Extra["authentication.kubernetes.io/node-uid"], "") != string(node.UID) ||
		strings.Join(st.User.Extra["authentication.kubernetes.io/pod-name"], "") != "mine" {
		t.Fatalf("TokenReview of the node's token: %+v", st)
	}
	_, err := nc.CoreV1().ServiceAccounts(ns).CreateToken(ctx, "default", &authenticationv1.TokenRequest{}, metav1.CreateOptions{})
	forbidden(t, "a token bound to nothing", err, "node requested token not bound to a pod")
	_, err = nc.CoreV1().ServiceAccounts(ns).CreateToken(ctx, "default", bound(theirs), metav1.CreateOptions{})
	forbidden(t, "a token bound to another node's pod", err, "node requested token bound to a pod scheduled on a different node")
}
