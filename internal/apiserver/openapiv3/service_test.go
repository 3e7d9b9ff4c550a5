package openapiv3

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	restful "github.com/emicklei/go-restful/v3"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	openapinamer "k8s.io/apiserver/pkg/endpoints/openapi"
	genericapiserver "k8s.io/apiserver/pkg/server"
	"k8s.io/apiserver/pkg/server/mux"
	"k8s.io/apiserver/pkg/server/routes"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/kube-openapi/pkg/common"
	"k8s.io/kube-openapi/pkg/handler3"
	"k8s.io/kube-openapi/pkg/spec3"
	"k8s.io/kube-openapi/pkg/validation/spec"

	"github.com/svcplane/svcplane/internal/apiserver/openapi"
)

// testRoutes is a container with two built-in groups' routes, as the
// API installer makes them (a list, a create with a body, a delete
// taking DeleteOptions, which InstallV3 narrows per group version).
func testRoutes() *restful.Container {
	c := restful.NewContainer()
	noop := func(*restful.Request, *restful.Response) {}
	core := new(restful.WebService).Path("/api/v1").Produces("application/json").Consumes("application/json")
	core.Route(core.GET("/configmaps").To(noop).Operation("listCoreV1ConfigMapForAllNamespaces").Returns(http.StatusOK, "OK", corev1.ConfigMapList{}))
	core.Route(core.POST("/namespaces/{namespace}/pods").To(noop).Operation("createCoreV1NamespacedPod").
		Param(core.PathParameter("namespace", "the namespace")).Reads(corev1.Pod{}).Returns(http.StatusCreated, "Created", corev1.Pod{}))
	core.Route(core.DELETE("/namespaces/{namespace}/pods/{name}").To(noop).Operation("deleteCoreV1NamespacedPod").
		Param(core.PathParameter("namespace", "the namespace")).Param(core.PathParameter("name", "the name")).
		Reads(metav1.DeleteOptions{}).Returns(http.StatusOK, "OK", corev1.Pod{}))
	c.Add(core)
	apps := new(restful.WebService).Path("/apis/apps/v1").Produces("application/json").Consumes("application/json")
	apps.Route(apps.GET("/namespaces/{namespace}/deployments").To(noop).Operation("listAppsV1NamespacedDeployment").
		Param(apps.PathParameter("namespace", "the namespace")).Returns(http.StatusOK, "OK", appsv1.DeploymentList{}))
	apps.Route(apps.DELETE("/namespaces/{namespace}/deployments/{name}").To(noop).Operation("deleteAppsV1NamespacedDeployment").
		Param(apps.PathParameter("namespace", "the namespace")).Param(apps.PathParameter("name", "the name")).
		Reads(metav1.DeleteOptions{}).Returns(http.StatusOK, "OK", appsv1.Deployment{}))
	c.Add(apps)
	return c
}

func testConfig() *common.OpenAPIV3Config {
	c := genericapiserver.DefaultOpenAPIV3Config(openapi.GetOpenAPIDefinitions, openapinamer.NewDefinitionNamer(scheme.Scheme))
	c.Info.Title, c.Info.Version = "Kubernetes", "v1.36.3"
	return c
}

// crdSpec stands for a CRD's document, which apiextensions' controller
// hands the server's handler3 service while it runs.
func crdSpec() *spec3.OpenAPI {
	return &spec3.OpenAPI{
		Version: "3.0.0",
		Info:    &spec.Info{InfoProps: spec.InfoProps{Title: "Kubernetes CRD Swagger", Version: "v0.1.0"}},
		Paths:   &spec3.Paths{Paths: map[string]*spec3.Path{}},
		Components: &spec3.Components{Schemas: map[string]*spec.Schema{
			"com.example.stable.v1.CronTab": {SchemaProps: spec.SchemaProps{Type: []string{"object"}}},
		}},
	}
}

const crdGroupVersion = "apis/stable.example.com/v1"

// servers are upstream's (InstallV3 into handler3, the CRD's document
// added to it) and ours on the same routes, the CRD's document added to
// Dynamic.
func servers(t *testing.T) (upstream, ours http.Handler, svc *Service) {
	t.Helper()
	container := testRoutes()
	up := mux.NewPathRecorderMux("upstream")
	service := routes.OpenAPI{V3Config: testConfig()}.InstallV3(container, up)
	service.UpdateGroupVersion(crdGroupVersion, crdSpec())
	built := 0
	svc = New(testConfig(), container, func() { built++ })
	m := mux.NewPathRecorderMux("ours")
	svc.Register(m)
	svc.Dynamic.UpdateGroupVersion(crdGroupVersion, crdSpec())
	t.Cleanup(func() {
		if built != 1 {
			t.Errorf("the documents were built %d times, want once", built)
		}
	})
	return up, m, svc
}

type answer struct {
	code    int
	body    []byte
	headers map[string]string
}

// compared are the headers both must agree on (Date, Expires and
// Last-Modified carry times).
var compared = []string{"Content-Type", "Etag", "Vary", "Cache-Control", "Location"}

func ask(h http.Handler, path string, header map[string]string) answer {
	r := httptest.NewRequest(http.MethodGet, path, nil)
	for k, v := range header {
		r.Header.Set(k, v)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	a := answer{code: w.Code, body: w.Body.Bytes(), headers: map[string]string{}}
	for _, k := range compared {
		a.headers[k] = w.Header().Get(k)
	}
	a.headers["has Expires"] = map[bool]string{true: "yes", false: "no"}[w.Header().Get("Expires") != ""]
	return a
}

func same(t *testing.T, what string, upstream, ours answer) {
	t.Helper()
	if upstream.code != ours.code {
		t.Errorf("%s: code %d, upstream %d", what, ours.code, upstream.code)
	}
	if !bytes.Equal(upstream.body, ours.body) {
		t.Errorf("%s: body differs (%d bytes, upstream %d)", what, len(ours.body), len(upstream.body))
	}
	for k, v := range upstream.headers {
		if ours.headers[k] != v {
			t.Errorf("%s: %s %q, upstream %q", what, k, ours.headers[k], v)
		}
	}
}

func discovery(t *testing.T, a answer) handler3.OpenAPIV3Discovery {
	t.Helper()
	var d handler3.OpenAPIV3Discovery
	if err := json.Unmarshal(a.body, &d); err != nil {
		t.Fatalf("discovery: %v: %s", err, a.body)
	}
	return d
}

// TestServesAsHandler3: for the same routes and CRD document, every
// answer is upstream's, byte for byte: discovery, each group version as
// JSON and protobuf (both media types), the hash links and their
// redirect, conditional requests, refused media types and unknown
// group versions.
func TestServesAsHandler3(t *testing.T) {
	upstream, ours, _ := servers(t)
	up := ask(upstream, "/openapi/v3", nil)
	same(t, "discovery", up, ask(ours, "/openapi/v3", nil))
	d := discovery(t, up)
	if len(d.Paths) != 3 {
		t.Fatalf("discovery lists %v, want api/v1, apis/apps/v1 and the CRD's", d.Paths)
	}
	same(t, "discovery, If-None-Match", ask(upstream, "/openapi/v3", map[string]string{"If-None-Match": up.headers["Etag"]}),
		ask(ours, "/openapi/v3", map[string]string{"If-None-Match": up.headers["Etag"]}))
	for gv, link := range d.Paths {
		path := "/openapi/v3/" + gv
		for _, c := range []struct {
			what, path string
			header     map[string]string
		}{
			{"JSON", path, map[string]string{"Accept": "application/json"}},
			{"no Accept", path, nil},
			{"protobuf", path, map[string]string{"Accept": "application/com.github.proto-openapi.spec.v3.v1.0+protobuf"}},
			{"deprecated protobuf", path, map[string]string{"Accept": "application/com.github.proto-openapi.spec.v3@v1.0+protobuf"}},
			{"protobuf preferred", path, map[string]string{"Accept": "application/com.github.proto-openapi.spec.v3.v1.0+protobuf;q=0.9,application/json;q=0.5"}},
			{"hash link", link.ServerRelativeURL, map[string]string{"Accept": "application/json"}},
			{"stale hash", path + "?hash=0123", map[string]string{"Accept": "application/json"}},
			{"refused media type", path, map[string]string{"Accept": "application/xml"}},
		} {
			u, o := ask(upstream, c.path, c.header), ask(ours, c.path, c.header)
			same(t, gv+" "+c.what, u, o)
			if c.what == "JSON" {
				if u.code != http.StatusOK || len(u.body) == 0 {
					t.Fatalf("%s: upstream answered %d with %d bytes", path, u.code, len(u.body))
				}
				same(t, gv+" If-None-Match", ask(upstream, path, map[string]string{"If-None-Match": u.headers["Etag"]}),
					ask(ours, path, map[string]string{"If-None-Match": u.headers["Etag"]}))
			}
		}
	}
	same(t, "unknown group version", ask(upstream, "/openapi/v3/apis/nothing.example.com/v1", nil),
		ask(ours, "/openapi/v3/apis/nothing.example.com/v1", nil))
}

// TestDiscoveryFollowsDynamic: discovery lists a group version added to
// Dynamic after the first request, and drops it once deleted, with the
// ETag upstream gives the same set.
func TestDiscoveryFollowsDynamic(t *testing.T) {
	upstream, ours, svc := servers(t)
	same(t, "discovery", ask(upstream, "/openapi/v3", nil), ask(ours, "/openapi/v3", nil))
	const added = "apis/other.example.com/v1beta1"
	svc.Dynamic.UpdateGroupVersion(added, crdSpec())
	if _, ok := discovery(t, ask(ours, "/openapi/v3", nil)).Paths[added]; !ok {
		t.Fatalf("discovery does not list %s after it was added", added)
	}
	svc.Dynamic.DeleteGroupVersion(crdGroupVersion)
	svc.Dynamic.DeleteGroupVersion(added)
	d := discovery(t, ask(ours, "/openapi/v3", nil))
	if _, ok := d.Paths[crdGroupVersion]; ok || len(d.Paths) != 2 {
		t.Fatalf("discovery after the deletes lists %v, want api/v1 and apis/apps/v1", d.Paths)
	}
	if got := ask(ours, "/openapi/v3/"+crdGroupVersion, map[string]string{"Accept": "application/json"}); len(got.body) != 0 {
		t.Errorf("a deleted group version still answers %d bytes", len(got.body))
	}
}
