package apiserver

import (
	"net/http"
	"sync"

	restful "github.com/emicklei/go-restful/v3"
	genericapiserver "k8s.io/apiserver/pkg/server"
	"k8s.io/klog/v2"
	builder2 "k8s.io/kube-openapi/pkg/builder"
	"k8s.io/kube-openapi/pkg/cached"
	"k8s.io/kube-openapi/pkg/common"
	"k8s.io/kube-openapi/pkg/common/restfuladapter"
	"k8s.io/kube-openapi/pkg/handler"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

// lazyOpenAPIV2 serves /openapi/v2 as k8s.io/apiserver's routes.OpenAPI
// InstallV2 does (the spec built from the go-restful routes with
// kube-openapi's builder, defaults pruned, behind kube-openapi's
// OpenAPIService), but builds the static spec on the first request
// instead of in PrepareRun: kubectl (v1.27+), client-go and the
// controllers read /openapi/v3, so a server that nobody asks for v2 never
// holds its ~10 MB. The answer, once built, is the same document.
//
// apiextensions-apiserver's CRD OpenAPI controller merges the CRDs into
// GenericAPIServer.StaticOpenAPISpec inside the lazy value it gives the
// OpenAPIService: that value is only read while the OpenAPIService
// serves, and every request passes ensure first, so the controller is
// handed spec (filled in place by ensure) and never sees it empty.
type lazyOpenAPIV2 struct {
	config    *common.Config
	container *restful.Container

	once sync.Once
	// spec is the static spec; empty until ensure.
	spec *spec.Swagger
	err  error
}

// installLazyOpenAPIV2 takes over the v2 endpoint of g from PrepareRun:
// config must be the completed OpenAPI config that g was built without
// (nil OpenAPIConfig, so PrepareRun installs no v2). It sets g's
// OpenAPIVersionedService and StaticOpenAPISpec, which the apiextensions
// post-start hook hands its CRD OpenAPI controller.
func installLazyOpenAPIV2(g *genericapiserver.GenericAPIServer, config *common.Config) *lazyOpenAPIV2 {
	l, svc := newLazyOpenAPIV2(config, g.Handler.GoRestfulContainer, g.Handler.NonGoRestfulMux)
	g.OpenAPIVersionedService, g.StaticOpenAPISpec = svc, l.spec
	return l
}

// newLazyOpenAPIV2 registers /openapi/v2 on mux for the routes of
// container.
func newLazyOpenAPIV2(config *common.Config, container *restful.Container, mux common.PathHandler) (*lazyOpenAPIV2, *handler.OpenAPIService) {
	l := &lazyOpenAPIV2{config: config, container: container, spec: &spec.Swagger{}}
	svc := handler.NewOpenAPIServiceLazy(cached.Func(func() (*spec.Swagger, string, error) {
		l.ensure()
		return l.spec, "static", l.err
	}))
	svc.RegisterOpenAPIVersionedService("/openapi/v2", ensuringMux{l: l, mux: mux})
	return l, svc
}

// ensure builds the static spec once, from the routes installed by then
// (every group is installed before the server serves).
func (l *lazyOpenAPIV2) ensure() {
	l.once.Do(func() {
		s, err := builder2.BuildOpenAPISpecFromRoutes(restfuladapter.AdaptWebServices(l.container.RegisteredWebServices()), l.config)
		if err != nil {
			l.err = err
			klog.Errorf("Failed to build the OpenAPI v2 spec: %v", err)
			return
		}
		s.Definitions = handler.PruneDefaults(s.Definitions)
		*l.spec = *s
	})
}

// ensuringMux registers handlers that build the static spec before they
// serve.
type ensuringMux struct {
	l   *lazyOpenAPIV2
	mux common.PathHandler
}

func (m ensuringMux) Handle(path string, h http.Handler) {
	m.mux.Handle(path, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		m.l.ensure()
		h.ServeHTTP(w, r)
	}))
}
