package apiserver

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"testing"

	restful "github.com/emicklei/go-restful/v3"
	corev1 "k8s.io/api/core/v1"
	apiextensionsapiserver "k8s.io/apiextensions-apiserver/pkg/apiserver"
	crdbuilder "k8s.io/apiextensions-apiserver/pkg/controller/openapi/builder"
	openapinamer "k8s.io/apiserver/pkg/endpoints/openapi"
	genericapiserver "k8s.io/apiserver/pkg/server"
	"k8s.io/apiserver/pkg/server/mux"
	"k8s.io/apiserver/pkg/server/routes"
	"k8s.io/kube-openapi/pkg/cached"
	"k8s.io/kube-openapi/pkg/common"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

// openAPITestRoutes is a container with two groups' routes returning
// svcplane's types.
func openAPITestRoutes() *restful.Container {
	c := restful.NewContainer()
	for _, path := range []string{"/api/v1", "/apis/example.svcplane.io/v1"} {
		ws := new(restful.WebService).Path(path).Produces("application/json")
		noop := func(*restful.Request, *restful.Response) {}
		ws.Route(ws.GET("/configmaps").To(noop).Operation("listConfigMaps").Returns(http.StatusOK, "OK", corev1.ConfigMapList{}))
		ws.Route(ws.POST("/namespaces/{namespace}/pods").To(noop).Operation("createPod").
			Param(ws.PathParameter("namespace", "the namespace")).Reads(corev1.Pod{}).Returns(http.StatusCreated, "Created", corev1.Pod{}))
		c.Add(ws)
	}
	return c
}

func openAPITestConfig(t *testing.T) *common.Config {
	t.Helper()
	external, err := NewExternalScheme()
	if err != nil {
		t.Fatal(err)
	}
	c := genericapiserver.DefaultOpenAPIConfig(openAPIDefinitions, openapinamer.NewDefinitionNamer(external, apiextensionsapiserver.Scheme))
	c.Info.Title, c.Info.Version = "Kubernetes", "v1.36.3"
	return c
}

func get(t *testing.T, h http.Handler, accept string) []byte {
	t.Helper()
	r := httptest.NewRequest(http.MethodGet, "/openapi/v2", nil)
	r.Header.Set("Accept", accept)
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	if w.Code != http.StatusOK {
		t.Fatalf("GET /openapi/v2 (%s): %d %s", accept, w.Code, w.Body.String())
	}
	return w.Body.Bytes()
}

// TestLazyOpenAPIV2MatchesInstallV2: the lazy endpoint serves, byte for
// byte in JSON and protobuf, what k8s.io/apiserver's routes.OpenAPI
// InstallV2 serves for the same routes and config, and builds nothing
// before the first request.
func TestLazyOpenAPIV2MatchesInstallV2(t *testing.T) {
	upstreamMux, lazyMux := mux.NewPathRecorderMux("upstream"), mux.NewPathRecorderMux("lazy")
	routes.OpenAPI{Config: openAPITestConfig(t)}.InstallV2(openAPITestRoutes(), upstreamMux)
	l, _ := newLazyOpenAPIV2(openAPITestConfig(t), openAPITestRoutes(), lazyMux)
	if l.spec.Paths != nil || len(l.spec.Definitions) != 0 {
		t.Fatal("the static spec was built before any request")
	}
	for _, accept := range []string{"application/json", "application/com.github.proto-openapi.spec.v2@v1.0+protobuf"} {
		want, got := get(t, upstreamMux, accept), get(t, lazyMux, accept)
		if !bytes.Equal(want, got) {
			t.Errorf("%s: lazy v2 differs from InstallV2's:\n got %.300s\nwant %.300s", accept, got, want)
		}
	}
	if len(l.spec.Paths.Paths) != 4 || l.spec.Definitions["io.k8s.api.core.v1.Pod"].Type == nil {
		t.Errorf("static spec after the request: %d paths, %v", len(l.spec.Paths.Paths), l.spec.Definitions["io.k8s.api.core.v1.Pod"].Type)
	}
}

// TestLazyOpenAPIV2MergedLikeAPIExtensions: what apiextensions' CRD
// OpenAPI controller serves (its static spec merged with the CRDs' inside
// a lazy value it stores in the OpenAPIService) carries the static paths
// on the first request.
func TestLazyOpenAPIV2MergedLikeAPIExtensions(t *testing.T) {
	m := mux.NewPathRecorderMux("lazy")
	l, svc := newLazyOpenAPIV2(openAPITestConfig(t), openAPITestRoutes(), m)
	// As the controller's updateSpecLocked: a lazy merge of the static
	// spec it was handed (here with no CRD).
	svc.UpdateSpecLazy(cached.Func(func() (*spec.Swagger, string, error) {
		s, err := crdbuilder.MergeSpecs(l.spec)
		return s, "merged", err
	}))
	body := get(t, m, "application/json")
	if !bytes.Contains(body, []byte(`"/apis/example.svcplane.io/v1/namespaces/{namespace}/pods"`)) {
		t.Fatalf("merged spec without the static paths: %.300s", body)
	}
}
