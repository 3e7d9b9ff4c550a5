package integration

import (
	"crypto/tls"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	admregv1 "k8s.io/api/admissionregistration/v1"
	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	restclient "k8s.io/client-go/rest"
	"k8s.io/utils/ptr"

	"github.com/svcplane/svcplane/internal/pki"
	"github.com/svcplane/svcplane/test/integration/framework"
)

// webhookServer is a TLS admission webhook on loopback with its own CA:
// /deny refuses objects labelled deny=true, /mutate adds the label
// mutated=yes with a JSON patch. It counts the reviews it answered.
type webhookServer struct {
	url      string // https://127.0.0.1:<port>
	port     int
	caBundle []byte
	mu       sync.Mutex
	calls    map[string]int
}

// startWebhookServer serves until the test ends; its certificate names
// 127.0.0.1 and the service DNS names in svcHosts.
func startWebhookServer(t *testing.T, svcHosts ...string) *webhookServer {
	t.Helper()
	dir := t.TempDir()
	ca, err := pki.LoadOrCreateCA(dir, "webhook-ca")
	noErr(t, err)
	certFile, keyFile, err := ca.EnsureServing(dir, "webhook", append([]string{"127.0.0.1"}, svcHosts...))
	noErr(t, err)
	cert, err := tls.LoadX509KeyPair(certFile, keyFile)
	noErr(t, err)
	caPEM, err := os.ReadFile(ca.CertFile)
	noErr(t, err)
	l, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{Certificates: []tls.Certificate{cert}})
	noErr(t, err)
	w := &webhookServer{caBundle: caPEM, calls: map[string]int{}, port: l.Addr().(*net.TCPAddr).Port}
	w.url = "https://" + l.Addr().String()
	srv := &http.Server{Handler: http.HandlerFunc(w.serve)}
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(func() { _ = srv.Close() })
	return w
}

func (w *webhookServer) serve(rw http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var review admissionv1.AdmissionReview
	if err := json.Unmarshal(body, &review); err != nil || review.Request == nil {
		http.Error(rw, "bad review", http.StatusBadRequest)
		return
	}
	w.mu.Lock()
	w.calls[r.URL.Path]++
	w.mu.Unlock()
	var obj metav1.PartialObjectMetadata
	_ = json.Unmarshal(review.Request.Object.Raw, &obj)
	resp := &admissionv1.AdmissionResponse{UID: review.Request.UID, Allowed: true}
	switch r.URL.Path {
	case "/deny":
		if obj.Labels["deny"] == "true" {
			resp.Allowed = false
			resp.Result = &metav1.Status{Code: http.StatusForbidden, Message: "the deny label is not welcome here"}
		}
	case "/mutate":
		op := `{"op":"add","path":"/metadata/labels","value":{"mutated":"yes"}}`
		if obj.Labels != nil {
			op = `{"op":"add","path":"/metadata/labels/mutated","value":"yes"}`
		}
		resp.Patch = []byte("[" + op + "]")
		resp.PatchType = ptr.To(admissionv1.PatchTypeJSONPatch)
	}
	review.Response, review.Request = resp, nil
	_ = json.NewEncoder(rw).Encode(&review)
}

func (w *webhookServer) callsTo(path string) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.calls[path]
}

// admissionServer is the server of the admission tests, of their own:
// webhook configurations and policies are cluster-wide. Webhooks given by
// a service reference are resolved as kube-apiserver's default does (the
// Service's ClusterIP, or an ExternalName's host: webhookService).
func admissionServer(t *testing.T) *framework.Server {
	t.Helper()
	s, err := framework.StartWith(t.TempDir(), nil)
	noErr(t, err)
	t.Cleanup(func() {
		if err := s.Stop(); err != nil {
			t.Errorf("stop: %v", err)
		}
	})
	return s
}

// testNamespace creates a namespace labelled admission-test=<name> (the
// webhooks' namespace selector) and waits for its default ServiceAccount.
func testNamespace(t *testing.T, c kubernetes.Interface, name string) string {
	t.Helper()
	get(c.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{
		Name: name, Labels: map[string]string{"admission-test": name}}}, metav1.CreateOptions{}))(t)
	waitForDefaultServiceAccount(t, c, name)
	return name
}

// configMap is a ConfigMap named name, or cm-<random> when name is empty.
func configMap(name string, labels map[string]string) *corev1.ConfigMap {
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}}
	if name == "" {
		cm.GenerateName = "cm-"
	}
	return cm
}

// webhook is a validating webhook on ConfigMap creates in the namespaces
// labelled admission-test=<ns>, skipping objects labelled skip-webhook.
func webhook(name string, cc admregv1.WebhookClientConfig, ns string, fp admregv1.FailurePolicyType) admregv1.ValidatingWebhook {
	return admregv1.ValidatingWebhook{
		Name: name, ClientConfig: cc, FailurePolicy: &fp,
		Rules: []admregv1.RuleWithOperations{{Operations: []admregv1.OperationType{admregv1.Create},
			Rule: admregv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"configmaps"}}}},
		NamespaceSelector:       &metav1.LabelSelector{MatchLabels: map[string]string{"admission-test": ns}},
		ObjectSelector:          &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "skip-webhook", Operator: metav1.LabelSelectorOpDoesNotExist}}},
		SideEffects:             ptr.To(admregv1.SideEffectClassNone),
		AdmissionReviewVersions: []string{"v1"},
	}
}

func urlConfig(w *webhookServer, path string) admregv1.WebhookClientConfig {
	return admregv1.WebhookClientConfig{URL: ptr.To(w.url + path), CABundle: w.caBundle}
}

// TestAdmissionWebhooks: validating and mutating webhooks over TLS with
// their caBundle, by URL and by service reference; failurePolicy with the
// webhook down; namespace and object selectors.
func TestAdmissionWebhooks(t *testing.T) {
	skipShort(t)
	s := admissionServer(t)
	c := s.Client
	ns := testNamespace(t, c, "webhooks")
	other := testNamespace(t, c, "elsewhere")
	w := startWebhookServer(t, "admission-webhook."+ns+".svc")

	get(c.AdmissionregistrationV1().ValidatingWebhookConfigurations().Create(ctx, &admregv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "deny"},
		Webhooks:   []admregv1.ValidatingWebhook{webhook("deny.svcplane.test", urlConfig(w, "/deny"), ns, admregv1.Fail)},
	}, metav1.CreateOptions{}))(t)
	const denied = `admission webhook "deny.svcplane.test" denied the request: the deny label is not welcome here`
	var err error
	eventually(t, "the validating webhook denies", func() bool {
		_, err = c.CoreV1().ConfigMaps(ns).Create(ctx, configMap("", map[string]string{"deny": "true"}), metav1.CreateOptions{DryRun: []string{"All"}})
		return err != nil
	})
	if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), denied) {
		t.Errorf("denied create: %v, want 403 with %q", err, denied)
	}
	get(c.CoreV1().ConfigMaps(ns).Create(ctx, configMap("plain", nil), metav1.CreateOptions{}))(t)
	t.Run("objectSelector skips", func(t *testing.T) {
		get(c.CoreV1().ConfigMaps(ns).Create(ctx, configMap("skipped", map[string]string{"deny": "true", "skip-webhook": "yes"}), metav1.CreateOptions{}))(t)
	})
	t.Run("namespaceSelector skips", func(t *testing.T) {
		before := w.callsTo("/deny")
		get(c.CoreV1().ConfigMaps(other).Create(ctx, configMap("elsewhere", map[string]string{"deny": "true"}), metav1.CreateOptions{}))(t)
		if after := w.callsTo("/deny"); after != before {
			t.Errorf("the webhook was called for a namespace its selector does not match (%d → %d calls)", before, after)
		}
	})

	t.Run("mutating JSON patch", func(t *testing.T) {
		get(c.AdmissionregistrationV1().MutatingWebhookConfigurations().Create(ctx, &admregv1.MutatingWebhookConfiguration{
			ObjectMeta: metav1.ObjectMeta{Name: "mutate"},
			Webhooks:   []admregv1.MutatingWebhook{mutatingWebhook(webhook("mutate.svcplane.test", urlConfig(w, "/mutate"), ns, admregv1.Fail))},
		}, metav1.CreateOptions{}))(t)
		eventually(t, "the mutating webhook labels new ConfigMaps", func() bool {
			cm, err := c.CoreV1().ConfigMaps(ns).Create(ctx, configMap("", map[string]string{"a": "b"}), metav1.CreateOptions{DryRun: []string{"All"}})
			return err == nil && cm.Labels["mutated"] == "yes" && cm.Labels["a"] == "b"
		})
		noErr(t, c.AdmissionregistrationV1().MutatingWebhookConfigurations().Delete(ctx, "mutate", metav1.DeleteOptions{}))
	})

	t.Run("failurePolicy with the webhook down", func(t *testing.T) {
		cc := admregv1.WebhookClientConfig{URL: ptr.To(downURL(t) + "/deny"), CABundle: w.caBundle}
		cfg := get(c.AdmissionregistrationV1().ValidatingWebhookConfigurations().Create(ctx, &admregv1.ValidatingWebhookConfiguration{
			ObjectMeta: metav1.ObjectMeta{Name: "down"},
			Webhooks:   []admregv1.ValidatingWebhook{webhook("down.svcplane.test", cc, other, admregv1.Fail)},
		}, metav1.CreateOptions{}))(t)
		create := func() error {
			_, err := c.CoreV1().ConfigMaps(other).Create(ctx, configMap("", nil), metav1.CreateOptions{DryRun: []string{"All"}})
			return err
		}
		eventually(t, "Fail refuses while the webhook is down", func() bool { err = create(); return err != nil })
		const want = `failed calling webhook "down.svcplane.test"`
		if !apierrors.IsInternalError(err) || !strings.Contains(err.Error(), want) {
			t.Errorf("failurePolicy Fail: %v, want a 500 with %q", err, want)
		}
		cfg.Webhooks[0].FailurePolicy = ptr.To(admregv1.Ignore)
		get(c.AdmissionregistrationV1().ValidatingWebhookConfigurations().Update(ctx, cfg, metav1.UpdateOptions{}))(t)
		eventually(t, "Ignore lets the create in while the webhook is down", func() bool { return create() == nil })
		noErr(t, c.AdmissionregistrationV1().ValidatingWebhookConfigurations().Delete(ctx, "down", metav1.DeleteOptions{}))
	})

	t.Run("service reference", func(t *testing.T) {
		webhookService(t, c, ns, w.port)
		ref := admregv1.WebhookClientConfig{CABundle: w.caBundle,
			Service: &admregv1.ServiceReference{Namespace: ns, Name: "admission-webhook", Path: ptr.To("/deny"), Port: ptr.To(int32(w.port))}}
		hook := webhook("svc.svcplane.test", ref, ns, admregv1.Fail)
		hook.ObjectSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"via": "service"}}
		get(c.AdmissionregistrationV1().ValidatingWebhookConfigurations().Create(ctx, &admregv1.ValidatingWebhookConfiguration{
			ObjectMeta: metav1.ObjectMeta{Name: "svc"}, Webhooks: []admregv1.ValidatingWebhook{hook},
		}, metav1.CreateOptions{}))(t)
		want := `admission webhook "svc.svcplane.test" denied the request: the deny label is not welcome here`
		eventually(t, "the service-reference webhook denies", func() bool {
			_, err = c.CoreV1().ConfigMaps(ns).Create(ctx, configMap("", map[string]string{"deny": "true", "via": "service", "skip-webhook": "x"}), metav1.CreateOptions{DryRun: []string{"All"}})
			return err != nil && strings.Contains(err.Error(), want)
		})
	})
}

func mutatingWebhook(v admregv1.ValidatingWebhook) admregv1.MutatingWebhook {
	return admregv1.MutatingWebhook{Name: v.Name, ClientConfig: v.ClientConfig, Rules: v.Rules, FailurePolicy: v.FailurePolicy,
		NamespaceSelector: v.NamespaceSelector, ObjectSelector: v.ObjectSelector, SideEffects: v.SideEffects,
		AdmissionReviewVersions: v.AdmissionReviewVersions}
}

// downURL is an https URL on a loopback port nothing listens on.
func downURL(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	noErr(t, err)
	addr := l.Addr().String()
	noErr(t, l.Close())
	return "https://" + addr
}

// webhookService makes ns/admission-webhook a selectorless Service on
// port 443 whose EndpointSlice points at the webhook server on loopback.
func webhookService(t *testing.T, c kubernetes.Interface, ns string, port int) {
	t.Helper()
	// An ExternalName Service naming this host: no proxy routes ClusterIPs
	// here, and EndpointSlices may not hold loopback addresses (upstream's
	// validation). The webhook's TLS server name stays the Service's DNS
	// name, as for any service reference.
	get(c.CoreV1().Services(ns).Create(ctx, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "admission-webhook"},
		Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeExternalName, ExternalName: "localhost",
			Ports: []corev1.ServicePort{{Name: "https", Port: int32(port)}}},
	}, metav1.CreateOptions{}))(t)
}

// warnings collects the warnings a client is sent.
type warnings struct {
	mu   sync.Mutex
	msgs []string
}

func (w *warnings) HandleWarningHeader(code int, agent, text string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.msgs = append(w.msgs, text)
}

func (w *warnings) all() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return strings.Join(w.msgs, "\n")
}

// TestAdmissionPolicies: a ValidatingAdmissionPolicy bound with Deny
// refuses a Deployment with more than 5 replicas with its message; bound
// with Warn the Deployment is created and the client warned; the status
// controller type-checks policies. A MutatingAdmissionPolicy labels
// ConfigMaps.
func TestAdmissionPolicies(t *testing.T) {
	skipShort(t)
	s := admissionServer(t)
	c := s.Client
	ns := testNamespace(t, c, "policies")
	get(c.AdmissionregistrationV1().ValidatingAdmissionPolicies().Create(ctx, &admregv1.ValidatingAdmissionPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: "max-replicas"},
		Spec: admregv1.ValidatingAdmissionPolicySpec{MatchConstraints: deploymentRules(),
			Validations: []admregv1.Validation{{Expression: "object.spec.replicas <= 5", Message: "replicas must be no greater than 5"}},
		},
	}, metav1.CreateOptions{}))(t)
	binding := get(c.AdmissionregistrationV1().ValidatingAdmissionPolicyBindings().Create(ctx, &admregv1.ValidatingAdmissionPolicyBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "max-replicas-binding"},
		Spec: admregv1.ValidatingAdmissionPolicyBindingSpec{PolicyName: "max-replicas", ValidationActions: []admregv1.ValidationAction{admregv1.Deny},
			MatchResources: &admregv1.MatchResources{NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"admission-test": ns}}}},
	}, metav1.CreateOptions{}))(t)

	deploy := func(replicas int32) *appsv1.Deployment {
		labels := map[string]string{"app": "web"}
		return &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{GenerateName: "web-"}, Spec: appsv1.DeploymentSpec{
			Replicas: &replicas, Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}}}}}
	}
	const want = `ValidatingAdmissionPolicy 'max-replicas' with binding 'max-replicas-binding' denied request: replicas must be no greater than 5`
	var err error
	eventually(t, "the policy denies 6 replicas", func() bool {
		_, err = c.AppsV1().Deployments(ns).Create(ctx, deploy(6), metav1.CreateOptions{DryRun: []string{"All"}})
		return err != nil
	})
	if !apierrors.IsInvalid(err) && !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), want) {
		t.Errorf("6 replicas: %v, want %q", err, want)
	}
	get(c.AppsV1().Deployments(ns).Create(ctx, deploy(5), metav1.CreateOptions{}))(t)

	t.Run("type checking", func(t *testing.T) {
		typeChecked := func(name string) *admregv1.ValidatingAdmissionPolicy {
			var p *admregv1.ValidatingAdmissionPolicy
			eventually(t, name+" is type checked", func() bool {
				p = get(c.AdmissionregistrationV1().ValidatingAdmissionPolicies().Get(ctx, name, metav1.GetOptions{}))(t)
				return p.Status.TypeChecking != nil && p.Status.ObservedGeneration == p.Generation
			})
			return p
		}
		if w := typeChecked("max-replicas").Status.TypeChecking.ExpressionWarnings; len(w) != 0 {
			t.Errorf("max-replicas warnings: %+v, want none", w)
		}
		get(c.AdmissionregistrationV1().ValidatingAdmissionPolicies().Create(ctx, &admregv1.ValidatingAdmissionPolicy{
			ObjectMeta: metav1.ObjectMeta{Name: "typo"},
			Spec: admregv1.ValidatingAdmissionPolicySpec{MatchConstraints: deploymentRules(),
				Validations: []admregv1.Validation{{Expression: "object.spec.replicaz > 1"}}},
		}, metav1.CreateOptions{}))(t)
		w := typeChecked("typo").Status.TypeChecking.ExpressionWarnings
		if len(w) != 1 || w[0].FieldRef != "spec.validations[0].expression" || !strings.Contains(w[0].Warning, "undefined field 'replicaz'") {
			t.Errorf("typo warnings: %+v, want one at spec.validations[0].expression about replicaz", w)
		}
	})

	binding.Spec.ValidationActions = []admregv1.ValidationAction{admregv1.Warn}
	get(c.AdmissionregistrationV1().ValidatingAdmissionPolicyBindings().Update(ctx, binding, metav1.UpdateOptions{}))(t)
	warned := &warnings{}
	cfg := restclient.CopyConfig(s.Config)
	cfg.WarningHandler = warned
	wc := kubernetes.NewForConfigOrDie(cfg)
	const warning = `Validation failed for ValidatingAdmissionPolicy 'max-replicas' with binding 'max-replicas-binding': replicas must be no greater than 5`
	eventually(t, "the Warn binding lets 6 replicas in with a warning", func() bool {
		_, err := wc.AppsV1().Deployments(ns).Create(ctx, deploy(6), metav1.CreateOptions{DryRun: []string{"All"}})
		return err == nil && strings.Contains(warned.all(), warning)
	})

	t.Run("mutating policy", func(t *testing.T) {
		get(c.AdmissionregistrationV1().MutatingAdmissionPolicies().Create(ctx, &admregv1.MutatingAdmissionPolicy{
			ObjectMeta: metav1.ObjectMeta{Name: "label-configmaps"},
			Spec: admregv1.MutatingAdmissionPolicySpec{
				MatchConstraints: &admregv1.MatchResources{ResourceRules: []admregv1.NamedRuleWithOperations{{RuleWithOperations: admregv1.RuleWithOperations{
					Operations: []admregv1.OperationType{admregv1.Create},
					Rule:       admregv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"configmaps"}}}}}},
				ReinvocationPolicy: admregv1.NeverReinvocationPolicy,
				Mutations: []admregv1.Mutation{{PatchType: admregv1.PatchTypeApplyConfiguration, ApplyConfiguration: &admregv1.ApplyConfiguration{
					Expression: `Object{metadata: Object.metadata{labels: {"policy": "applied"}}}`}}},
			},
		}, metav1.CreateOptions{}))(t)
		get(c.AdmissionregistrationV1().MutatingAdmissionPolicyBindings().Create(ctx, &admregv1.MutatingAdmissionPolicyBinding{
			ObjectMeta: metav1.ObjectMeta{Name: "label-configmaps"},
			Spec: admregv1.MutatingAdmissionPolicyBindingSpec{PolicyName: "label-configmaps",
				MatchResources: &admregv1.MatchResources{NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"admission-test": ns}}}},
		}, metav1.CreateOptions{}))(t)
		eventually(t, "the mutating policy labels new ConfigMaps", func() bool {
			cm, err := c.CoreV1().ConfigMaps(ns).Create(ctx, configMap("", map[string]string{"a": "b"}), metav1.CreateOptions{DryRun: []string{"All"}})
			return err == nil && cm.Labels["policy"] == "applied" && cm.Labels["a"] == "b"
		})
	})
}

// TestAdmissionRegistrationDiscovery: aggregated discovery lists the group
// with the six resources of v1, as kube-apiserver 1.36 serves them.
func TestAdmissionRegistrationDiscovery(t *testing.T) {
	skipShort(t)
	raw, err := server.Client.Discovery().RESTClient().Get().AbsPath("/apis").
		SetHeader("Accept", "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList").DoRaw(ctx)
	noErr(t, err)
	var list apidiscoveryv2.APIGroupDiscoveryList
	noErr(t, json.Unmarshal(raw, &list))
	for _, g := range list.Items {
		if g.Name != admregv1.GroupName {
			continue
		}
		if len(g.Versions) != 1 || g.Versions[0].Version != "v1" {
			t.Fatalf("versions %+v, want v1 only", g.Versions)
		}
		var got []string
		for _, r := range g.Versions[0].Resources {
			got = append(got, r.Resource)
		}
		want := []string{"mutatingadmissionpolicies", "mutatingadmissionpolicybindings", "mutatingwebhookconfigurations",
			"validatingadmissionpolicies", "validatingadmissionpolicybindings", "validatingwebhookconfigurations"}
		if strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("resources %v, want %v", got, want)
		}
		return
	}
	t.Fatalf("aggregated discovery has no %s", admregv1.GroupName)
}

func deploymentRules() *admregv1.MatchResources {
	return &admregv1.MatchResources{ResourceRules: []admregv1.NamedRuleWithOperations{{RuleWithOperations: admregv1.RuleWithOperations{
		Operations: []admregv1.OperationType{admregv1.Create, admregv1.Update},
		Rule:       admregv1.Rule{APIGroups: []string{"apps"}, APIVersions: []string{"v1"}, Resources: []string{"deployments"}}}}}}
}

// TestAdmissionRegistrationInvalid: bad configurations are refused with
// 422 and upstream's field paths.
func TestAdmissionRegistrationInvalid(t *testing.T) {
	skipShort(t)
	c := server.Client.AdmissionregistrationV1()
	cases := []struct {
		name   string
		create func() error
		fields []string
	}{
		{"webhook without sideEffects, http URL, no review versions", func() error {
			_, err := c.ValidatingWebhookConfigurations().Create(ctx, &admregv1.ValidatingWebhookConfiguration{
				ObjectMeta: metav1.ObjectMeta{Name: "bad-webhook"},
				Webhooks: []admregv1.ValidatingWebhook{{Name: "nodots",
					ClientConfig: admregv1.WebhookClientConfig{URL: ptr.To("http://127.0.0.1/x")}}},
			}, metav1.CreateOptions{})
			return err
		}, []string{"webhooks[0].name", "webhooks[0].sideEffects", "webhooks[0].clientConfig.url", "webhooks[0].admissionReviewVersions"}},
		{"mutating webhook with bad timeout and service", func() error {
			_, err := c.MutatingWebhookConfigurations().Create(ctx, &admregv1.MutatingWebhookConfiguration{
				ObjectMeta: metav1.ObjectMeta{Name: "bad-mutating"},
				Webhooks: []admregv1.MutatingWebhook{{Name: "a.b.c", SideEffects: ptr.To(admregv1.SideEffectClassNone), AdmissionReviewVersions: []string{"v1"},
					TimeoutSeconds: ptr.To[int32](31), ClientConfig: admregv1.WebhookClientConfig{Service: &admregv1.ServiceReference{Namespace: "ns", Name: "svc", Path: ptr.To("no-slash")}}}},
			}, metav1.CreateOptions{})
			return err
		}, []string{"webhooks[0].timeoutSeconds", "webhooks[0].clientConfig.service.path"}},
		{"policy with an expression that does not compile", func() error {
			_, err := c.ValidatingAdmissionPolicies().Create(ctx, &admregv1.ValidatingAdmissionPolicy{
				ObjectMeta: metav1.ObjectMeta{Name: "bad-policy"},
				Spec: admregv1.ValidatingAdmissionPolicySpec{
					MatchConstraints: &admregv1.MatchResources{},
					Validations:      []admregv1.Validation{{Expression: "object.spec.replicas >"}},
				},
			}, metav1.CreateOptions{})
			return err
		}, []string{"spec.matchConstraints.resourceRules", "spec.validations[0].expression"}},
		{"binding without actions", func() error {
			_, err := c.ValidatingAdmissionPolicyBindings().Create(ctx, &admregv1.ValidatingAdmissionPolicyBinding{
				ObjectMeta: metav1.ObjectMeta{Name: "bad-binding"},
				Spec:       admregv1.ValidatingAdmissionPolicyBindingSpec{ParamRef: &admregv1.ParamRef{Name: "x"}},
			}, metav1.CreateOptions{})
			return err
		}, []string{"spec.policyName", "spec.paramRef.parameterNotFoundAction", "spec.validationActions"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.create()
			if !apierrors.IsInvalid(err) {
				t.Fatalf("got %v, want 422 Invalid", err)
			}
			var got []string
			for _, cause := range err.(apierrors.APIStatus).Status().Details.Causes {
				got = append(got, cause.Field)
			}
			for _, f := range tc.fields {
				if !contains(got, f) {
					t.Errorf("no cause at %s in %v (%v)", f, got, err)
				}
			}
		})
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestKubectlGetAdmissionRegistration: kubectl get prints each kind with
// kube-apiserver's columns.
func TestKubectlGetAdmissionRegistration(t *testing.T) {
	skipShort(t)
	if _, err := exec.LookPath("kubectl"); err != nil {
		t.Skip("no kubectl")
	}
	c := server.Client.AdmissionregistrationV1()
	hook := webhook("get.svcplane.test", admregv1.WebhookClientConfig{URL: ptr.To("https://127.0.0.1:1/x")}, "kubectl-get-nothing", admregv1.Ignore)
	get(c.ValidatingWebhookConfigurations().Create(ctx, &admregv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "get-vwc"}, Webhooks: []admregv1.ValidatingWebhook{hook}}, metav1.CreateOptions{}))(t)
	get(c.MutatingWebhookConfigurations().Create(ctx, &admregv1.MutatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "get-mwc"}, Webhooks: []admregv1.MutatingWebhook{mutatingWebhook(hook), mutatingWebhook(webhookNamed(hook, "two.svcplane.test"))}}, metav1.CreateOptions{}))(t)
	rules := &admregv1.MatchResources{ResourceRules: []admregv1.NamedRuleWithOperations{{RuleWithOperations: admregv1.RuleWithOperations{
		Operations: []admregv1.OperationType{admregv1.Create}, Rule: admregv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"nothings"}}}}}}
	get(c.ValidatingAdmissionPolicies().Create(ctx, &admregv1.ValidatingAdmissionPolicy{ObjectMeta: metav1.ObjectMeta{Name: "get-vap"}, Spec: admregv1.ValidatingAdmissionPolicySpec{
		MatchConstraints: rules, ParamKind: &admregv1.ParamKind{APIVersion: "v1", Kind: "ConfigMap"},
		Validations: []admregv1.Validation{{Expression: "true"}, {Expression: "1 == 1"}}}}, metav1.CreateOptions{}))(t)
	get(c.ValidatingAdmissionPolicyBindings().Create(ctx, &admregv1.ValidatingAdmissionPolicyBinding{ObjectMeta: metav1.ObjectMeta{Name: "get-vapb"}, Spec: admregv1.ValidatingAdmissionPolicyBindingSpec{
		PolicyName: "get-vap", ValidationActions: []admregv1.ValidationAction{admregv1.Audit},
		ParamRef: &admregv1.ParamRef{Name: "limits", Namespace: "default", ParameterNotFoundAction: ptr.To(admregv1.AllowAction)}}}, metav1.CreateOptions{}))(t)
	get(c.MutatingAdmissionPolicies().Create(ctx, &admregv1.MutatingAdmissionPolicy{ObjectMeta: metav1.ObjectMeta{Name: "get-map"}, Spec: admregv1.MutatingAdmissionPolicySpec{
		MatchConstraints: rules, ReinvocationPolicy: admregv1.NeverReinvocationPolicy,
		Mutations: []admregv1.Mutation{{PatchType: admregv1.PatchTypeJSONPatch, JSONPatch: &admregv1.JSONPatch{Expression: `[JSONPatch{op: "test", path: "/metadata/name", value: object.metadata.name}]`}}}}}, metav1.CreateOptions{}))(t)
	get(c.MutatingAdmissionPolicyBindings().Create(ctx, &admregv1.MutatingAdmissionPolicyBinding{ObjectMeta: metav1.ObjectMeta{Name: "get-mapb"}, Spec: admregv1.MutatingAdmissionPolicyBindingSpec{
		PolicyName: "get-map"}}, metav1.CreateOptions{}))(t)
	t.Cleanup(func() {
		_ = c.ValidatingWebhookConfigurations().Delete(ctx, "get-vwc", metav1.DeleteOptions{})
		_ = c.MutatingWebhookConfigurations().Delete(ctx, "get-mwc", metav1.DeleteOptions{})
		_ = c.ValidatingAdmissionPolicyBindings().Delete(ctx, "get-vapb", metav1.DeleteOptions{})
		_ = c.ValidatingAdmissionPolicies().Delete(ctx, "get-vap", metav1.DeleteOptions{})
		_ = c.MutatingAdmissionPolicyBindings().Delete(ctx, "get-mapb", metav1.DeleteOptions{})
		_ = c.MutatingAdmissionPolicies().Delete(ctx, "get-map", metav1.DeleteOptions{})
	})
	for _, tc := range []struct {
		resource, name string
		header, row    []string
	}{
		{"validatingwebhookconfigurations", "get-vwc", []string{"NAME", "WEBHOOKS", "AGE"}, []string{"get-vwc", "1"}},
		{"mutatingwebhookconfigurations", "get-mwc", []string{"NAME", "WEBHOOKS", "AGE"}, []string{"get-mwc", "2"}},
		{"validatingadmissionpolicies", "get-vap", []string{"NAME", "VALIDATIONS", "PARAMKIND", "AGE"}, []string{"get-vap", "2", "v1/ConfigMap"}},
		{"validatingadmissionpolicybindings", "get-vapb", []string{"NAME", "POLICYNAME", "PARAMREF", "AGE"}, []string{"get-vapb", "get-vap", "default/limits"}},
		{"mutatingadmissionpolicies", "get-map", []string{"NAME", "MUTATIONS", "PARAMKIND", "AGE"}, []string{"get-map", "1", "<unset>"}},
		{"mutatingadmissionpolicybindings", "get-mapb", []string{"NAME", "POLICYNAME", "PARAMREF", "AGE"}, []string{"get-mapb", "get-map", "<unset>"}},
	} {
		out, err := exec.Command("kubectl", "--kubeconfig", server.Kubeconfig, "get", tc.resource, tc.name).CombinedOutput()
		if err != nil {
			t.Errorf("kubectl get %s: %v\n%s", tc.resource, err, out)
			continue
		}
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		if len(lines) != 2 || strings.Join(strings.Fields(lines[0]), " ") != strings.Join(tc.header, " ") {
			t.Errorf("kubectl get %s: header %q, want %v", tc.resource, out, tc.header)
			continue
		}
		row := strings.Fields(lines[1])
		if len(row) != len(tc.header) || strings.Join(row[:len(tc.row)], " ") != strings.Join(tc.row, " ") {
			t.Errorf("kubectl get %s: row %q, want %v then the age", tc.resource, lines[1], tc.row)
		}
	}
}

func webhookNamed(h admregv1.ValidatingWebhook, name string) admregv1.ValidatingWebhook {
	h.Name = name
	return h
}

// TestAdmissionPolicyParamAuthorization: a user who may write policies but
// not read their params is refused a paramKind or paramRef (422 with a
// Forbidden cause, upstream's message) until allowed to read them.
func TestAdmissionPolicyParamAuthorization(t *testing.T) {
	skipShort(t)
	admin := server.Client
	const who = "policy-writer"
	_, c := userClient(t, who)
	get(admin.RbacV1().ClusterRoles().Create(ctx, &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: who},
		Rules: []rbacv1.PolicyRule{{Verbs: []string{"create", "get", "update", "delete"}, APIGroups: []string{admregv1.GroupName},
			Resources: []string{"validatingadmissionpolicies", "validatingadmissionpolicybindings"}}}}, metav1.CreateOptions{}))(t)
	subject := rbacv1.Subject{Kind: "User", APIGroup: rbacv1.GroupName, Name: who}
	get(admin.RbacV1().ClusterRoleBindings().Create(ctx, &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: who},
		Subjects: []rbacv1.Subject{subject}, RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: who}}, metav1.CreateOptions{}))(t)
	t.Cleanup(func() {
		_ = admin.RbacV1().ClusterRoleBindings().Delete(ctx, who, metav1.DeleteOptions{})
		_ = admin.RbacV1().ClusterRoles().Delete(ctx, who, metav1.DeleteOptions{})
		_ = admin.AdmissionregistrationV1().ValidatingAdmissionPolicies().Delete(ctx, "with-params", metav1.DeleteOptions{})
	})
	policy := &admregv1.ValidatingAdmissionPolicy{ObjectMeta: metav1.ObjectMeta{Name: "with-params"},
		Spec: admregv1.ValidatingAdmissionPolicySpec{MatchConstraints: deploymentRules(), ParamKind: &admregv1.ParamKind{APIVersion: "v1", Kind: "ConfigMap"},
			Validations: []admregv1.Validation{{Expression: "object.spec.replicas <= int(params.data.max)"}}}}
	var err error
	eventually(t, "the writer's ClusterRole is in force", func() bool {
		_, err = c.AdmissionregistrationV1().ValidatingAdmissionPolicies().Create(ctx, policy, metav1.CreateOptions{DryRun: []string{"All"}})
		return !apierrors.IsForbidden(err)
	})
	// Upstream prints the user's struct, extra (the credential ID) included.
	const who1, want = `spec.paramKind: Forbidden: user &{policy-writer  [system:authenticated] map[`,
		`must have "get" permission on all objects of the referenced paramKind (kind=ConfigMap, apiVersion=v1)`
	if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), who1) || !strings.Contains(err.Error(), want) {
		t.Fatalf("got %v, want 422 with %q … %q", err, who1, want)
	}
	get(admin.RbacV1().ClusterRoleBindings().Create(ctx, &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: who + "-view"},
		Subjects: []rbacv1.Subject{subject}, RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "view"}}, metav1.CreateOptions{}))(t)
	t.Cleanup(func() { _ = admin.RbacV1().ClusterRoleBindings().Delete(ctx, who+"-view", metav1.DeleteOptions{}) })
	eventually(t, "allowed to read ConfigMaps, the writer may create the policy", func() bool {
		_, err = c.AdmissionregistrationV1().ValidatingAdmissionPolicies().Create(ctx, policy, metav1.CreateOptions{})
		return err == nil
	})
}
