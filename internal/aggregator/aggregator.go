package aggregator

import (
	"fmt"

	crdinformers "k8s.io/apiextensions-apiserver/pkg/client/informers/externalversions/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	genericregistry "k8s.io/apiserver/pkg/registry/generic"
	genericapiserver "k8s.io/apiserver/pkg/server"
	genericoptions "k8s.io/apiserver/pkg/server/options"
	"k8s.io/client-go/informers"
	"k8s.io/klog/v2"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
	apiregistrationv1beta1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1beta1"
	aggregatorapiserver "k8s.io/kube-aggregator/pkg/apiserver"
	aggregatorscheme "k8s.io/kube-aggregator/pkg/apiserver/scheme"
	apiregistrationclient "k8s.io/kube-aggregator/pkg/client/clientset_generated/clientset/typed/apiregistration/v1"
	"k8s.io/kube-aggregator/pkg/controllers/autoregister"
	aggregatoropenapi "k8s.io/kube-aggregator/pkg/generated/openapi"
)

// Config is what the aggregator takes from the core server.
type Config struct {
	// Generic is a copy of the core's generic configuration taken before
	// the core completed it (kube-apiserver copies its own likewise):
	// authentication, authorization, admission, handler chain, OpenAPI
	// (whose definitions must include apiregistration's), the shared
	// aggregated discovery manager.
	Generic genericapiserver.Config
	// Informers are the core's shared informers (Services and
	// EndpointSlices for the remote availability checks).
	Informers informers.SharedInformerFactory
	// Etcd are the core's etcd options; APIServices get their own codec.
	Etcd genericoptions.EtcdOptions
	// WrapStorage, when set, replaces the APIServices' storage getter
	// by its result (the core's storage backend).
	WrapStorage func(genericregistry.RESTOptionsGetter) genericregistry.RESTOptionsGetter
	// ProxyClientCertFile/KeyFile: the front-proxy client certificate the
	// aggregator presents to the servers behind remote APIServices.
	ProxyClientCertFile, ProxyClientKeyFile string
	// ServiceResolver finds a remote APIService's Service (ClusterIP, or
	// endpoints with --enable-aggregator-routing; default/kubernetes is
	// this server).
	ServiceResolver aggregatorapiserver.ServiceResolver
	// CRDs is the apiextensions server's CRD informer.
	CRDs crdinformers.CustomResourceDefinitionInformer
}

// New builds the aggregator in front of delegate (the server holding the
// built-in groups and the CRDs), with the APIService auto-registration
// of delegate's group versions and the CRDs' (as kube-apiserver's
// CreateAggregatorConfig and CreateAggregatorServer).
func New(c Config, delegate genericapiserver.DelegationTarget) (*aggregatorapiserver.APIAggregator, error) {
	generic := c.Generic
	generic.PostStartHooks = map[string]genericapiserver.PostStartHookConfigEntry{}
	// The aggregator serves the merged OpenAPI itself.
	generic.SkipOpenAPIInstallation = true
	etcd := c.Etcd
	etcd.StorageConfig.Codec = aggregatorscheme.Codecs.LegacyCodec(apiregistrationv1.SchemeGroupVersion, apiregistrationv1beta1.SchemeGroupVersion)
	etcd.StorageConfig.EncodeVersioner = runtime.NewMultiGroupVersioner(apiregistrationv1.SchemeGroupVersion,
		schema.GroupKind{Group: apiregistrationv1beta1.GroupName})
	generic.RESTOptionsGetter = etcd.CreateRESTOptionsGetter(
		&genericoptions.SimpleStorageFactory{StorageConfig: etcd.StorageConfig}, generic.ResourceTransformers)
	if c.WrapStorage != nil {
		generic.RESTOptionsGetter = c.WrapStorage(generic.RESTOptionsGetter)
	}
	generic.MergedResourceConfig = aggregatorapiserver.DefaultAPIResourceConfigSource()
	ownOpenAPI(&generic)

	config := &aggregatorapiserver.Config{
		GenericConfig: &genericapiserver.RecommendedConfig{Config: generic, SharedInformerFactory: c.Informers},
		ExtraConfig: aggregatorapiserver.ExtraConfig{
			ProxyClientCertFile: c.ProxyClientCertFile,
			ProxyClientKeyFile:  c.ProxyClientKeyFile,
			ServiceResolver:     c.ServiceResolver,
		},
	}
	completed := config.Complete()
	agg, err := completed.NewWithDelegate(delegate)
	if err != nil {
		return nil, err
	}
	if err := addAutoRegistration(agg, completed, delegate, c.CRDs); err != nil {
		return nil, err
	}
	return agg, nil
}

// ownOpenAPI gives the aggregator's server OpenAPI configurations of its
// own: the same namer and info, but only kube-aggregator's definitions
// (APIService and the meta types), which are all its own documents and
// managed-fields models refer to. kube-apiserver hands it every built-in
// definition; building that map again for one group is start-up work
// for the same output (the delegate's definitions come in through its
// downloaded documents).
func ownOpenAPI(c *genericapiserver.Config) {
	if c.OpenAPIConfig != nil {
		v2 := *c.OpenAPIConfig
		v2.GetDefinitions = aggregatoropenapi.GetOpenAPIDefinitions
		c.OpenAPIConfig = &v2
	}
	if c.OpenAPIV3Config != nil {
		v3 := *c.OpenAPIV3Config
		v3.GetDefinitions = aggregatoropenapi.GetOpenAPIDefinitions
		// DefaultOpenAPIV3Config's map of every definition, which the
		// builder would read instead of GetDefinitions: nil, it calls
		// GetDefinitions (kube-aggregator's few), and the copy does not
		// keep the core's map alive.
		v3.Definitions = nil
		c.OpenAPIV3Config = &v3
	}
}

// addAutoRegistration wires the autoregister controller (local
// APIServices of delegate's group versions, then the CRDs'), the
// priorities in aggregated discovery and the autoregister-completion
// readiness check.
func addAutoRegistration(agg *aggregatorapiserver.APIAggregator, completed aggregatorapiserver.CompletedConfig, delegate genericapiserver.DelegationTarget, crds crdinformers.CustomResourceDefinitionInformer) error {
	client, err := apiregistrationclient.NewForConfig(completed.GenericConfig.LoopbackClientConfig)
	if err != nil {
		return err
	}
	apiServices := agg.APIRegistrationInformers.Apiregistration().V1().APIServices()
	autoRegistration := autoregister.NewAutoRegisterController(apiServices, client)
	priorities := APIVersionPriorities()
	local := localAPIServices(delegate.ListedPaths(), autoRegistration, priorities)
	CRDRegistration, err := NewCRDRegistration(crds, autoRegistration)
	if err != nil {
		return err
	}
	if m := completed.GenericConfig.AggregatedDiscoveryGroupManager; m != nil {
		for gv, p := range priorities {
			m.SetGroupVersionPriority(metav1.GroupVersion(gv), int(p.Group), int(p.Version))
		}
	}
	err = agg.GenericAPIServer.AddPostStartHook("kube-apiserver-autoregistration", func(hc genericapiserver.PostStartHookContext) error {
		go CRDRegistration.Run(5, hc.Done())
		go func() {
			// The CRDs' APIServices first: the autoregister controller's
			// first pass deletes auto-managed APIServices it does not know.
			klog.V(2).Info("waiting for initial CRD sync...")
			CRDRegistration.WaitForInitialSync()
			autoRegistration.Run(5, hc.Done())
		}()
		return nil
	})
	if err != nil {
		return err
	}
	check, err := newAvailableCheck(local, apiServices)
	if err != nil {
		return fmt.Errorf("autoregister-completion: %w", err)
	}
	return agg.GenericAPIServer.AddBootSequenceHealthChecks(check.healthChecker())
}
