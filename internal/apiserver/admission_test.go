package apiserver

import (
	"context"
	"strings"
	"testing"

	admregv1 "k8s.io/api/admissionregistration/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/admission/initializer"
	webhookinit "k8s.io/apiserver/pkg/admission/plugin/webhook/initializer"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizerfactory"
	utilcompatibility "k8s.io/apiserver/pkg/util/compatibility"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/apiserver/pkg/util/webhook"
	"k8s.io/client-go/discovery"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/openapi"
	"k8s.io/utils/ptr"

	"github.com/svcplane/svcplane/internal/admission/exclusion"
	"github.com/svcplane/svcplane/internal/registry"
	"github.com/svcplane/svcplane/internal/version"
)

// TestAdmissionOrder: kube-apiserver's recommended order of the plugins
// svcplane has.
func TestAdmissionOrder(t *testing.T) {
	var got []string
	for _, p := range admissionPlugins {
		got = append(got, p.name)
	}
	want := []string{"NamespaceLifecycle", "ServiceAccount", "NodeRestriction", "MutatingAdmissionPolicy",
		"MutatingAdmissionWebhook", "ValidatingAdmissionPolicy", "ValidatingAdmissionWebhook"}
	if len(got) != len(want) {
		t.Fatalf("plugins %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("plugins %v, want %v", got, want)
		}
	}
}

// testChain builds the first n plugins of the chain on fake clients with
// synced informers holding the namespace "ns".
func testChain(tb testing.TB, n int, objs ...runtime.Object) (admission.Interface, admission.ObjectInterfaces) {
	tb.Helper()
	scheme, err := NewScheme(registry.Definitions())
	if err != nil {
		tb.Fatal(err)
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "ns"}, Status: corev1.NamespaceStatus{Phase: corev1.NamespaceActive}}
	fc := fake.NewClientset(append([]runtime.Object{ns}, objs...)...)
	client := noOpenAPIClient{fc}
	f := informers.NewSharedInformerFactory(fc, 0)
	resolver, err := newServiceResolver(f, "https://127.0.0.1:6443", false)
	if err != nil {
		tb.Fatal(err)
	}
	stop := make(chan struct{})
	tb.Cleanup(func() { close(stop) })
	mapper := meta.NewDefaultRESTMapper(nil)
	mapper.Add(corev1.SchemeGroupVersion.WithKind("ConfigMap"), meta.RESTScopeNamespace)
	mapper.Add(authorizationv1.SchemeGroupVersion.WithKind("SelfSubjectAccessReview"), meta.RESTScopeRoot)
	chain, err := buildAdmission(admissionPlugins[:n], admission.PluginInitializers{
		initializer.NewAPIServerIDInitializer("test"),
		initializer.New(client, dynamicfake.NewSimpleDynamicClient(runtime.NewScheme()), f, authorizerfactory.NewAlwaysAllowAuthorizer(),
			utilfeature.DefaultFeatureGate, version.EffectiveVersion{EffectiveVersion: utilcompatibility.DefaultBuildEffectiveVersion()}, stop, mapper),
		webhookinit.NewPluginInitializer(webhook.NewDefaultAuthenticationInfoResolverWrapper(nil, nil, nil, nil), resolver),
		excludedResources(exclusion.Excluded()),
	})
	if err != nil {
		tb.Fatal(err)
	}
	f.Start(stop)
	f.WaitForCacheSync(stop)
	return chain, admission.NewObjectInterfacesFromScheme(scheme)
}

// noOpenAPIClient is the fake clientset with a discovery that serves no
// OpenAPI v3 paths (the fake's panics; MutatingAdmissionPolicy asks).
type noOpenAPIClient struct{ *fake.Clientset }

func (c noOpenAPIClient) Discovery() discovery.DiscoveryInterface {
	return noOpenAPIDiscovery{c.Clientset.Discovery()}
}

type noOpenAPIDiscovery struct{ discovery.DiscoveryInterface }

func (noOpenAPIDiscovery) OpenAPIV3() openapi.Client { return noPaths{} }

type noPaths struct{}

func (noPaths) Paths() (map[string]openapi.GroupVersion, error) {
	return map[string]openapi.GroupVersion{}, nil
}

func configMapCreate() admission.Attributes {
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "cm"}}
	return admission.NewAttributesRecord(cm, nil, corev1.SchemeGroupVersion.WithKind("ConfigMap"), "ns", "cm",
		schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}, "", admission.Create, &metav1.CreateOptions{}, false,
		&user.DefaultInfo{Name: "alice"})
}

// admit runs a request through the chain's mutating then validating
// plugins, as the REST handlers do.
func admit(ctx context.Context, chain admission.Interface, a admission.Attributes, o admission.ObjectInterfaces) error {
	if m, ok := chain.(admission.MutationInterface); ok && m.Handles(a.GetOperation()) {
		if err := m.Admit(ctx, a, o); err != nil {
			return err
		}
	}
	if v, ok := chain.(admission.ValidationInterface); ok && v.Handles(a.GetOperation()) {
		return v.Validate(ctx, a, o)
	}
	return nil
}

// TestAdmissionAdmitsWithoutConfiguration: with no webhook or policy
// objects every plugin lets a ConfigMap create through.
func TestAdmissionAdmitsWithoutConfiguration(t *testing.T) {
	chain, o := testChain(t, len(admissionPlugins))
	if err := admit(context.Background(), chain, configMapCreate(), o); err != nil {
		t.Fatal(err)
	}
}

// TestAdmissionPolicyExclusions: a policy that denies every create
// refuses a ConfigMap but not a SelfSubjectAccessReview (kube-apiserver
// keeps the reviews out of admission policies).
func TestAdmissionPolicyExclusions(t *testing.T) {
	all := []admregv1.NamedRuleWithOperations{{RuleWithOperations: admregv1.RuleWithOperations{
		Operations: []admregv1.OperationType{admregv1.Create},
		Rule:       admregv1.Rule{APIGroups: []string{"*"}, APIVersions: []string{"*"}, Resources: []string{"*"}}}}}
	policy := &admregv1.ValidatingAdmissionPolicy{ObjectMeta: metav1.ObjectMeta{Name: "deny-all", Generation: 1},
		Spec: admregv1.ValidatingAdmissionPolicySpec{FailurePolicy: ptr.To(admregv1.Fail),
			MatchConstraints: &admregv1.MatchResources{ResourceRules: all, MatchPolicy: ptr.To(admregv1.Equivalent),
				NamespaceSelector: &metav1.LabelSelector{}, ObjectSelector: &metav1.LabelSelector{}},
			Validations: []admregv1.Validation{{Expression: "false", Message: "nothing gets in"}}}}
	binding := &admregv1.ValidatingAdmissionPolicyBinding{ObjectMeta: metav1.ObjectMeta{Name: "deny-all"},
		Spec: admregv1.ValidatingAdmissionPolicyBindingSpec{PolicyName: "deny-all", ValidationActions: []admregv1.ValidationAction{admregv1.Deny}}}
	chain, o := testChain(t, len(admissionPlugins), policy, binding)
	ctx := context.Background()
	// The plugin waits until its policy source has synced (and compiled).
	if err := admit(ctx, chain, configMapCreate(), o); err == nil || !strings.Contains(err.Error(), "nothing gets in") {
		t.Fatalf("ConfigMap: %v, want the policy's denial", err)
	}
	review := &authorizationv1.SelfSubjectAccessReview{}
	a := admission.NewAttributesRecord(review, nil, authorizationv1.SchemeGroupVersion.WithKind("SelfSubjectAccessReview"), "", "",
		authorizationv1.SchemeGroupVersion.WithResource("selfsubjectaccessreviews"), "", admission.Create, &metav1.CreateOptions{}, false,
		&user.DefaultInfo{Name: "alice"})
	if err := admit(ctx, chain, a, o); err != nil {
		t.Errorf("SelfSubjectAccessReview: %v, want it admitted", err)
	}
}

// BenchmarkAdmission is the cost per request of the admission chain with
// no configuration objects: the three plugins svcplane had before the
// webhook and policy plugins, and all seven.
func BenchmarkAdmission(b *testing.B) {
	for _, c := range []struct {
		name string
		n    int
	}{{"lifecycle-serviceaccount-noderestriction", 3}, {"all-seven", len(admissionPlugins)}} {
		b.Run(c.name, func(b *testing.B) {
			chain, o := testChain(b, c.n)
			ctx := context.Background()
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if err := admit(ctx, chain, configMapCreate(), o); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
