package apiserver

import (
	genericapiserver "k8s.io/apiserver/pkg/server"
	"k8s.io/kube-openapi/pkg/common"

	"github.com/svcplane/svcplane/internal/apiserver/openapiv3"
)

// installOpenAPIV3 takes over /openapi/v3 of g from PrepareRun (g must be
// built with SkipOpenAPIInstallation): the built-in group versions are
// served from their JSON (openapiv3.Service), the CRDs' through the
// handler3 service it sets as g's OpenAPIV3VersionedService, which the
// apiextensions post-start hook hands its CRD OpenAPI controller.
//
// Once the documents are built, config's Definitions (the generated
// definitions, kept by DefaultOpenAPIV3Config so that each build during
// the start reuses one map) are emptied and dropped: what reads them, the
// managed-fields models of each InstallAPIGroup and these documents, has
// run by then (a later builder calls GetDefinitions, as their map is
// nil). Emptied, not only dropped: something the generic server keeps
// from the start still points at the map (measured: dropping alone left
// its ~3 MB live; the heap profile cannot say who).
func installOpenAPIV3(g *genericapiserver.GenericAPIServer, config *common.OpenAPIV3Config) {
	s := openapiv3.New(config, g.Handler.GoRestfulContainer, func() {
		clear(config.Definitions)
		config.Definitions = nil
	})
	s.Register(g.Handler.NonGoRestfulMux)
	g.OpenAPIV3VersionedService = s.Dynamic
}

// dropStaticOpenAPISpecs lets the installed groups' StaticOpenAPISpec
// go: InstallAPIGroup builds it (every definition the group's resources
// refer to) for the managed-fields type converters and leaves it on the
// APIGroupInfo, which the groups' REST handlers keep; nothing reads it
// once the groups are installed.
func dropStaticOpenAPISpecs(core *genericapiserver.APIGroupInfo, named []*genericapiserver.APIGroupInfo) {
	core.StaticOpenAPISpec = nil
	for _, g := range named {
		g.StaticOpenAPISpec = nil
	}
}
