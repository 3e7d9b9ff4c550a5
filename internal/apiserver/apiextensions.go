package apiserver

import (
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsv1beta1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1beta1"
	apiextensionsapiserver "k8s.io/apiextensions-apiserver/pkg/apiserver"
	apiextensionsoptions "k8s.io/apiextensions-apiserver/pkg/cmd/server/options"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	genericapifilters "k8s.io/apiserver/pkg/endpoints/filters"
	"k8s.io/apiserver/pkg/registry/generic"
	genericapiserver "k8s.io/apiserver/pkg/server"
	genericoptions "k8s.io/apiserver/pkg/server/options"
	"k8s.io/apiserver/pkg/util/notfoundhandler"
	"k8s.io/apiserver/pkg/util/webhook"
)

// newAPIExtensions builds the server behind the aggregator: k8s.io/
// apiextensions-apiserver's (CustomResourceDefinitions, the custom
// resource handler and its controllers) on config, into which build then
// installs svcplane's own groups. kube-apiserver chains three servers
// (aggregator → core → apiextensions); svcplane chains two (aggregator →
// this one), so /api and the groups' OpenAPI come from one document that
// the apiextensions controllers extend with every CRD, and the
// aggregator in front serves /apis and merges OpenAPI.
//
// etcdOpts are the core's etcd options (endpoints, TLS, prefix); the
// CustomResourceDefinitions are stored as kube-apiserver stores them
// (JSON, apiextensions.k8s.io/v1beta1 encoding, under
// /registry/apiextensions.k8s.io/customresourcedefinitions), custom
// resources as JSON under /registry/<group>/<plural>, both through the
// core's encryption-at-rest transformers. config.RESTOptionsGetter must be
// the core's getter's replacement by the time New runs: it is set here to
// the CustomResourceDefinitions' (the core's storages are built by the
// caller from its own getter).
//
// wrap gives every getter the server's storage backend (Server.wrapStorage).
//
// Conversion webhooks named by Service are resolved by resolver, the one
// the admission webhooks use (as kube-apiserver shares its resolver).
func newAPIExtensions(config *genericapiserver.RecommendedConfig, etcdOpts *genericoptions.EtcdOptions, masterCount int, resolver webhook.ServiceResolver, wrap func(generic.RESTOptionsGetter) generic.RESTOptionsGetter) (*apiextensionsapiserver.CustomResourceDefinitions, error) {
	crdEtcd := *etcdOpts
	crdEtcd.StorageConfig.Codec = apiextensionsapiserver.Codecs.LegacyCodec(apiextensionsv1beta1.SchemeGroupVersion, apiextensionsv1.SchemeGroupVersion)
	// kube-apiserver keeps CRDs in their more compact v1beta1 form
	// (https://issue.k8s.io/82292); so does svcplane, so that either
	// reads the other's etcd.
	crdEtcd.StorageConfig.EncodeVersioner = runtime.NewMultiGroupVersioner(apiextensionsv1beta1.SchemeGroupVersion,
		schema.GroupKind{Group: apiextensionsv1beta1.GroupName})
	config.RESTOptionsGetter = wrap(crdEtcd.CreateRESTOptionsGetter(
		&genericoptions.SimpleStorageFactory{StorageConfig: crdEtcd.StorageConfig}, config.ResourceTransformers))
	config.MergedResourceConfig = apiextensionsapiserver.DefaultAPIResourceConfigSource()

	c := &apiextensionsapiserver.Config{
		GenericConfig: config,
		ExtraConfig: apiextensionsapiserver.ExtraConfig{
			CRDRESTOptionsGetter: wrap(apiextensionsoptions.NewCRDRESTOptionsGetter(*etcdOpts, config.ResourceTransformers, config.StorageObjectCountTracker)),
			MasterCount:          masterCount,
			ServiceResolver:      resolver,
			AuthResolverWrapper: webhook.NewDefaultAuthenticationInfoResolverWrapper(nil, nil,
				config.LoopbackClientConfig, config.TracerProvider),
		},
	}
	// apiextensions turns the /apis handler off: the aggregator in front
	// serves /apis (from the APIServices).
	completed := c.Complete()
	// As kube-apiserver: what no handler serves is a 404 Status (503 while
	// the CRDs are not yet known, so a client retries rather than giving up).
	notFound := notfoundhandler.New(config.Serializer, genericapifilters.NoMuxAndDiscoveryIncompleteKey)
	// /openapi/v2 is built on its first request (openapi_lazy.go), not
	// in PrepareRun; /openapi/v3 keeps the JSON of its documents, not
	// their objects (internal/apiserver/openapiv3).
	openAPIV2 := completed.GenericConfig.OpenAPIConfig
	completed.GenericConfig.OpenAPIConfig = nil
	completed.GenericConfig.SkipOpenAPIInstallation = true
	s, err := completed.New(genericapiserver.NewEmptyDelegateWithCustomHandler(notFound))
	if err != nil {
		return nil, err
	}
	if openAPIV2 != nil {
		installLazyOpenAPIV2(s.GenericAPIServer, openAPIV2)
	}
	if v3 := completed.GenericConfig.OpenAPIV3Config; v3 != nil {
		installOpenAPIV3(s.GenericAPIServer, v3)
	}
	return s, nil
}
