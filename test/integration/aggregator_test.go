package integration

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
	aggregatorclient "k8s.io/kube-aggregator/pkg/client/clientset_generated/clientset"
	"k8s.io/utils/ptr"

	"github.com/svcplane/svcplane/internal/pki"
	"github.com/svcplane/svcplane/internal/testutil"
)

func apiServiceClient(t *testing.T) aggregatorclient.Interface {
	t.Helper()
	return get(aggregatorclient.NewForConfig(server.Config))(t)
}

// availableCondition returns the APIService's Available condition (zero
// when it has none yet).
func availableCondition(t *testing.T, name string) apiregistrationv1.APIServiceCondition {
	t.Helper()
	s, err := apiServiceClient(t).ApiregistrationV1().APIServices().Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return apiregistrationv1.APIServiceCondition{Reason: err.Error()}
	}
	for _, c := range s.Status.Conditions {
		if c.Type == apiregistrationv1.Available {
			return c
		}
	}
	return apiregistrationv1.APIServiceCondition{}
}

// TestAggregatorLocalAPIServices: every built-in group version has a
// local APIService (kubectl's SERVICE Local, AVAILABLE True), a CRD's
// served versions get one while it exists, and the aggregator lists the
// groups in /apis from them.
func TestAggregatorLocalAPIServices(t *testing.T) {
	skipShort(t)
	out := crdMustKubectl(t, "get", "apiservices")
	for _, name := range []string{"v1.", "v1.apps", "v1.rbac.authorization.k8s.io", "v1.apiextensions.k8s.io", "v1.admissionregistration.k8s.io"} {
		found := false
		for _, line := range strings.Split(out, "\n") {
			f := strings.Fields(line)
			if len(f) >= 3 && f[0] == name {
				found = true
				if f[1] != "Local" || f[2] != "True" {
					t.Errorf("kubectl get apiservices: %q, want SERVICE Local, AVAILABLE True", line)
				}
			}
		}
		if !found {
			t.Errorf("kubectl get apiservices lists no %s:\n%s", name, out)
		}
	}
	local := get(apiServiceClient(t).ApiregistrationV1().APIServices().Get(ctx, "v1.apps", metav1.GetOptions{}))(t)
	if local.Spec.Service != nil || local.Spec.GroupPriorityMinimum != 17800 || local.Spec.VersionPriority != 15 {
		t.Errorf("v1.apps spec %+v, want local with kube-apiserver's priorities 17800/15", local.Spec)
	}
	if c := availableCondition(t, "v1.apps"); c.Reason != "Local" {
		t.Errorf("v1.apps Available reason %q, want Local", c.Reason)
	}
	if !inLegacyGroupList(t, schema.GroupVersion{Group: "apiregistration.k8s.io", Version: "v1"}) {
		t.Errorf("/apis does not list apiregistration.k8s.io/v1")
	}

	crd := &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "knobs.aggregation.example.com"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "aggregation.example.com", Scope: apiextensionsv1.NamespaceScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "knobs", Singular: "knob", Kind: "Knob", ListKind: "KnobList"},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{
				{Name: "v1", Served: true, Storage: true, Schema: &apiextensionsv1.CustomResourceValidation{
					OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{Type: "object", XPreserveUnknownFields: ptr.To(true)}}},
				{Name: "v1beta1", Served: false, Schema: &apiextensionsv1.CustomResourceValidation{
					OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{Type: "object", XPreserveUnknownFields: ptr.To(true)}}},
			},
		},
	}
	createCRD(t, crd)
	apiServices := apiServiceClient(t).ApiregistrationV1().APIServices()
	testutil.Eventually(t, 30*time.Second, "v1.aggregation.example.com Local and Available", func() bool {
		c := availableCondition(t, "v1.aggregation.example.com")
		return c.Status == apiregistrationv1.ConditionTrue && c.Reason == "Local"
	})
	s := get(apiServices.Get(ctx, "v1.aggregation.example.com", metav1.GetOptions{}))(t)
	if s.Spec.GroupPriorityMinimum != 1000 || s.Spec.VersionPriority != 100 {
		t.Errorf("CRD APIService priorities %d/%d, want 1000/100", s.Spec.GroupPriorityMinimum, s.Spec.VersionPriority)
	}
	if _, err := apiServices.Get(ctx, "v1beta1.aggregation.example.com", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("unserved v1beta1 has an APIService (err %v)", err)
	}
	crds := crdClient(t).ApiextensionsV1().CustomResourceDefinitions()
	noErr(t, crds.Delete(ctx, crd.Name, metav1.DeleteOptions{}))
	testutil.Eventually(t, 30*time.Second, "v1.aggregation.example.com gone with its CRD", func() bool {
		_, err := apiServices.Get(ctx, "v1.aggregation.example.com", metav1.GetOptions{})
		return apierrors.IsNotFound(err) && !inLegacyGroupList(t, schema.GroupVersion{Group: "aggregation.example.com", Version: "v1"})
	})
}

// TestAggregatorRemoteAPIService: an APIService naming a Service whose
// server answers HTTPS gets Available=True (Passed); its group is
// proxied there with the front-proxy client certificate (verified against
// the requestheader CA published in extension-apiserver-authentication)
// and the caller's user in X-Remote-User, and shows in discovery. One
// naming a missing Service is Available=False, ServiceNotFound; one whose
// ClusterIP Service has no EndpointSlices, EndpointsNotFound. The
// server's OpenAPI v2 merges wardle's, and its v3 is proxied.
func TestAggregatorRemoteAPIService(t *testing.T) {
	skipShort(t)
	c := server.Client
	ns := newNamespace(t, c)
	trust := get(c.CoreV1().ConfigMaps("kube-system").Get(ctx, "extension-apiserver-authentication", metav1.GetOptions{}))(t)
	var allowed []string
	noErr(t, json.Unmarshal([]byte(trust.Data["requestheader-allowed-names"]), &allowed))
	if trust.Data["client-ca-file"] == "" || len(allowed) != 1 || allowed[0] != "front-proxy-client" {
		t.Fatalf("extension-apiserver-authentication: %v", trust.Data)
	}
	wardle := startWardleServer(t, []byte(trust.Data["requestheader-client-ca-file"]), "wardle."+ns+".svc")
	get(c.CoreV1().Services(ns).Create(ctx, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "wardle"},
		Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeExternalName, ExternalName: "localhost",
			Ports: []corev1.ServicePort{{Name: "https", Port: int32(wardle.port)}}},
	}, metav1.CreateOptions{}))(t)
	get(c.CoreV1().Services(ns).Create(ctx, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "no-endpoints"},
		Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Name: "https", Port: 443}}},
	}, metav1.CreateOptions{}))(t)
	apiServices := apiServiceClient(t).ApiregistrationV1().APIServices()
	create := func(group, svc string, port int32) {
		name := "v1alpha1." + group
		get(apiServices.Create(ctx, &apiregistrationv1.APIService{
			ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: apiregistrationv1.APIServiceSpec{Group: group, Version: "v1alpha1",
				Service:  &apiregistrationv1.ServiceReference{Namespace: ns, Name: svc, Port: ptr.To(port)},
				CABundle: wardle.caBundle, GroupPriorityMinimum: 2000, VersionPriority: 200},
		}, metav1.CreateOptions{}))(t)
		t.Cleanup(func() { _ = apiServices.Delete(ctx, name, metav1.DeleteOptions{}) })
	}
	create("wardle.example.com", "wardle", int32(wardle.port))
	create("missing.example.com", "not-there", 443)
	create("empty.example.com", "no-endpoints", 443)

	for _, want := range []struct {
		name, reason string
		status       apiregistrationv1.ConditionStatus
	}{
		{"v1alpha1.wardle.example.com", "Passed", apiregistrationv1.ConditionTrue},
		{"v1alpha1.missing.example.com", "ServiceNotFound", apiregistrationv1.ConditionFalse},
		{"v1alpha1.empty.example.com", "EndpointsNotFound", apiregistrationv1.ConditionFalse},
	} {
		testutil.EventuallyErr(t, 30*time.Second, want.name+" "+want.reason, func() error {
			if got := availableCondition(t, want.name); got.Status != want.status || got.Reason != want.reason {
				return fmt.Errorf("Available %s/%s (%s)", got.Status, got.Reason, got.Message)
			}
			return nil
		})
	}

	// Through the aggregator to the wardle server, as the admin.
	dyn := get(dynamic.NewForConfig(server.Config))(t)
	flunders := schema.GroupVersionResource{Group: "wardle.example.com", Version: "v1alpha1", Resource: "flunders"}
	// Available=True is written by one controller; the proxy learns it
	// from its own informer a moment later and answers 503 until then
	// (upstream's e2e of the sample API server polls the same way).
	var list *unstructured.UnstructuredList
	testutil.EventuallyErr(t, 30*time.Second, "flunders through the aggregator", func() error {
		var err error
		list, err = dyn.Resource(flunders).Namespace(ns).List(ctx, metav1.ListOptions{})
		if err != nil && !apierrors.IsServiceUnavailable(err) {
			t.Fatal(err)
		}
		return err
	})
	if len(list.Items) != 1 || list.Items[0].GetName() != "for-kubernetes-admin" {
		t.Fatalf("flunders via the aggregator: %+v, want one named for the caller", list.Items)
	}
	if got := wardle.proxyCN(); got != "front-proxy-client" {
		t.Errorf("the aggregator presented client certificate CN %q, want front-proxy-client", got)
	}
	testutil.Eventually(t, 30*time.Second, "wardle.example.com in aggregated and legacy discovery", func() bool {
		return inAggregatedDiscovery(t, flunders) && inLegacyGroupList(t, flunders.GroupVersion())
	})
	// Its OpenAPI: v2 merged into the server's document, v3 proxied.
	testutil.EventuallyErr(t, 60*time.Second, "wardle's OpenAPI v2 and v3 through the aggregator", func() error {
		var v2 struct {
			Definitions map[string]any `json:"definitions"`
		}
		raw, err := server.Client.Discovery().RESTClient().Get().AbsPath("/openapi/v2").DoRaw(ctx)
		if err != nil {
			return err
		}
		if err := json.Unmarshal(raw, &v2); err != nil {
			return err
		}
		if v2.Definitions["com.example.wardle.v1alpha1.FlunderList"] == nil || v2.Definitions["io.k8s.api.apps.v1.Deployment"] == nil {
			return fmt.Errorf("/openapi/v2 lacks wardle's FlunderList or apps' Deployment")
		}
		raw, err = server.Client.Discovery().RESTClient().Get().AbsPath("/openapi/v3/apis/wardle.example.com/v1alpha1").DoRaw(ctx)
		if err != nil {
			return err
		}
		if !strings.Contains(string(raw), "com.example.wardle.v1alpha1.Flunder") {
			return fmt.Errorf("/openapi/v3/apis/wardle.example.com/v1alpha1: %.200s", raw)
		}
		return nil
	})
	// Unavailable groups answer 503, as kube-apiserver.
	err := server.Client.Discovery().RESTClient().Get().AbsPath("/apis/missing.example.com/v1alpha1").Do(ctx).Error()
	if !apierrors.IsServiceUnavailable(err) {
		t.Errorf("/apis/missing.example.com/v1alpha1: %v, want 503", err)
	}
}

// wardleServer is a tiny aggregated API server on loopback: group
// wardle.example.com/v1alpha1 with one resource, flunders, whose list
// holds one flunder named for the user the front proxy asserts, and
// OpenAPI v2 and v3 documents naming its kinds. It
// accepts only clients whose certificate the request-header CA signed.
type wardleServer struct {
	port     int
	caBundle []byte
	cn       chan string
}

func (w *wardleServer) proxyCN() string {
	select {
	case cn := <-w.cn:
		return cn
	case <-time.After(10 * time.Second):
		return "(no request)"
	}
}

func startWardleServer(t *testing.T, requestHeaderCA []byte, host string) *wardleServer {
	t.Helper()
	dir := t.TempDir()
	ca, err := pki.LoadOrCreateCA(dir, "wardle-ca")
	noErr(t, err)
	certFile, keyFile, err := ca.EnsureServing(dir, "wardle", []string{host})
	noErr(t, err)
	cert, err := tls.LoadX509KeyPair(certFile, keyFile)
	noErr(t, err)
	caPEM, err := os.ReadFile(ca.CertFile)
	noErr(t, err)
	clientCAs := x509.NewCertPool()
	if !clientCAs.AppendCertsFromPEM(requestHeaderCA) {
		t.Fatal("no request-header CA")
	}
	l, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{Certificates: []tls.Certificate{cert},
		ClientCAs: clientCAs, ClientAuth: tls.RequireAndVerifyClientCert})
	noErr(t, err)
	w := &wardleServer{port: l.Addr().(*net.TCPAddr).Port, caBundle: caPEM, cn: make(chan string, 100)}
	srv := &http.Server{Handler: http.HandlerFunc(w.serve)}
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(func() { _ = srv.Close() })
	return w
}

func (w *wardleServer) serve(rw http.ResponseWriter, r *http.Request) {
	if r.TLS != nil && len(r.TLS.PeerCertificates) > 0 && strings.Contains(r.URL.Path, "/flunders") {
		w.cn <- r.TLS.PeerCertificates[0].Subject.CommonName
	}
	const gv = "wardle.example.com/v1alpha1"
	var body any
	switch p := r.URL.Path; {
	case p == "/apis":
		body = metav1.APIGroupList{TypeMeta: metav1.TypeMeta{Kind: "APIGroupList", APIVersion: "v1"}, Groups: []metav1.APIGroup{{
			Name: "wardle.example.com", Versions: []metav1.GroupVersionForDiscovery{{GroupVersion: gv, Version: "v1alpha1"}},
			PreferredVersion: metav1.GroupVersionForDiscovery{GroupVersion: gv, Version: "v1alpha1"}}}}
	case p == "/apis/"+gv:
		body = metav1.APIResourceList{TypeMeta: metav1.TypeMeta{Kind: "APIResourceList", APIVersion: "v1"}, GroupVersion: gv,
			APIResources: []metav1.APIResource{{Name: "flunders", Namespaced: true, Kind: "Flunder", Verbs: []string{"get", "list"}}}}
	case p == "/openapi/v2":
		body = map[string]any{"swagger": "2.0", "info": map[string]any{"title": "wardle", "version": "v1alpha1"},
			"paths": map[string]any{"/apis/" + gv + "/namespaces/{namespace}/flunders": map[string]any{"get": map[string]any{
				"operationId": "listWardleFlunders", "responses": map[string]any{"200": map[string]any{
					"description": "OK", "schema": map[string]any{"$ref": "#/definitions/com.example.wardle.v1alpha1.FlunderList"}}}}}},
			"definitions": map[string]any{"com.example.wardle.v1alpha1.FlunderList": map[string]any{"type": "object"}}}
	case p == "/openapi/v3":
		body = map[string]any{"paths": map[string]any{"apis/" + gv: map[string]any{
			"serverRelativeURL": "/openapi/v3/apis/" + gv + "?hash=1"}}}
	case p == "/openapi/v3/apis/"+gv:
		body = map[string]any{"openapi": "3.0.0", "info": map[string]any{"title": "wardle", "version": "v1alpha1"},
			"paths":      map[string]any{},
			"components": map[string]any{"schemas": map[string]any{"com.example.wardle.v1alpha1.Flunder": map[string]any{"type": "object"}}}}
	case strings.HasPrefix(p, "/apis/"+gv+"/namespaces/") && strings.HasSuffix(p, "/flunders"):
		body = map[string]any{"apiVersion": gv, "kind": "FlunderList", "metadata": map[string]any{},
			"items": []any{map[string]any{"apiVersion": gv, "kind": "Flunder",
				"metadata": map[string]any{"name": "for-" + r.Header.Get("X-Remote-User")}}}}
	default:
		http.NotFound(rw, r)
		return
	}
	rw.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(rw).Encode(body)
}
