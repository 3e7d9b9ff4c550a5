package apiserver

import (
	"io"
	"net/url"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/admission/initializer"
	admissionmetrics "k8s.io/apiserver/pkg/admission/metrics"
	"k8s.io/apiserver/pkg/admission/plugin/namespace/lifecycle"
	mutatingpolicy "k8s.io/apiserver/pkg/admission/plugin/policy/mutating"
	validatingpolicy "k8s.io/apiserver/pkg/admission/plugin/policy/validating"
	webhookinit "k8s.io/apiserver/pkg/admission/plugin/webhook/initializer"
	mutatingwebhook "k8s.io/apiserver/pkg/admission/plugin/webhook/mutating"
	validatingwebhook "k8s.io/apiserver/pkg/admission/plugin/webhook/validating"
	genericapiserver "k8s.io/apiserver/pkg/server"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/apiserver/pkg/util/webhook"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/restmapper"

	"github.com/svcplane/svcplane/internal/admission/exclusion"
	"github.com/svcplane/svcplane/internal/admission/noderestriction"
	"github.com/svcplane/svcplane/internal/admission/serviceaccount"
)

// admissionPlugins are the admission plugins in kube-apiserver's
// recommended order (pkg/kubeapiserver/options/plugins.go) of those
// svcplane has: upstream's NamespaceLifecycle (no objects in missing or
// terminating namespaces; default, kube-system and kube-public cannot be
// deleted), ServiceAccount (a pod's ServiceAccount, defaulted and existing,
// and its token volume: internal/admission/serviceaccount), NodeRestriction
// (a node writes only its own objects: internal/admission/noderestriction),
// then upstream's MutatingAdmissionPolicy, MutatingAdmissionWebhook,
// ValidatingAdmissionPolicy and ValidatingAdmissionWebhook, which act on
// the admissionregistration.k8s.io objects.
var admissionPlugins = []admissionPlugin{
	{lifecycle.PluginName, func() (admission.Interface, error) {
		return lifecycle.NewLifecycle(sets.New("default", "kube-system", "kube-public"))
	}},
	{serviceaccount.PluginName, func() (admission.Interface, error) { return serviceaccount.New(), nil }},
	{noderestriction.PluginName, func() (admission.Interface, error) { return noderestriction.New(), nil }},
	{mutatingpolicy.PluginName, func() (admission.Interface, error) { return mutatingpolicy.NewPlugin(nil) }},
	{mutatingwebhook.PluginName, func() (admission.Interface, error) { return mutatingwebhook.NewMutatingWebhook(nil) }},
	{validatingpolicy.PluginName, func() (admission.Interface, error) { return validatingpolicy.NewPlugin(nil) }},
	{validatingwebhook.PluginName, func() (admission.Interface, error) { return validatingwebhook.NewValidatingAdmissionWebhook(nil) }},
}

// admissionPlugin is a plugin's name and constructor.
type admissionPlugin struct {
	name string
	new  func() (admission.Interface, error)
}

// noPluginConfig: no plugin reads a configuration file.
type noPluginConfig struct{}

func (noPluginConfig) ConfigFor(string) (io.Reader, error) { return nil, nil }

// newAdmission builds the admission chain of plugins as kube-apiserver does: each
// plugin initialized with the loopback clients, the shared informers, the
// authorizer, the feature gates and a discovery REST mapper (reset every 30
// s once the server serves), the webhooks with the service resolver
// (ClusterIP, or endpoints with --enable-aggregator-routing;
// kubernetes.default.svc:443 is this server) and an authentication
// resolver that calls this server with the loopback credentials; each
// plugin is timed as upstream (apiserver_admission_controller_*).
func newAdmission(c *genericapiserver.RecommendedConfig, client kubernetes.Interface, f informers.SharedInformerFactory, plugins []admissionPlugin, routeToEndpoints bool) (admission.Interface, error) {
	dyn, err := dynamic.NewForConfig(c.LoopbackClientConfig)
	if err != nil {
		return nil, err
	}
	mapper := restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(client.Discovery()))
	if err := c.AddPostStartHook("start-apiserver-admission-initializer", func(hc genericapiserver.PostStartHookContext) error {
		mapper.Reset()
		go wait.Until(mapper.Reset, 30*time.Second, hc.Done())
		return nil
	}); err != nil {
		return nil, err
	}
	resolver, err := newServiceResolver(f, c.LoopbackClientConfig.Host, routeToEndpoints)
	if err != nil {
		return nil, err
	}
	authWrapper := webhook.NewDefaultAuthenticationInfoResolverWrapper(nil, nil, c.LoopbackClientConfig, c.TracerProvider)
	// The admission policy plugins run their informers and the mutating
	// one's /openapi/v3 poll (every 5 s) until this closes. kube-apiserver
	// gives them DrainedNotify; a poll that started before the drain then
	// meets the closed listener and logs "failed to fetch openapi paths"
	// as the server stops. Stopping them when the shutdown starts, the
	// requests still draining are admitted with the policies already
	// loaded.
	return buildAdmission(plugins, admission.PluginInitializers{
		initializer.NewAPIServerIDInitializer(c.APIServerID),
		initializer.New(client, dyn, f, c.Authorization.Authorizer, utilfeature.DefaultFeatureGate, c.EffectiveVersion, c.ShutdownInitiatedNotify(), mapper),
		webhookinit.NewPluginInitializer(authWrapper, resolver),
		excludedResources(exclusion.Excluded()),
	})
}

// excludedResources hands the plugins that want it the resources to leave
// alone.
type excludedResources []schema.GroupResource

func (e excludedResources) Initialize(p admission.Interface) {
	if w, ok := p.(initializer.WantsExcludedAdmissionResources); ok {
		w.SetExcludedAdmissionResources(e)
	}
}

// buildAdmission makes, initializes and chains the plugins in order.
func buildAdmission(ordered []admissionPlugin, inits admission.PluginInitializer) (admission.Interface, error) {
	plugins := admission.NewPlugins()
	names := make([]string, 0, len(ordered))
	for _, p := range ordered {
		newPlugin := p.new
		plugins.Register(p.name, func(io.Reader) (admission.Interface, error) { return newPlugin() })
		names = append(names, p.name)
	}
	chain, err := plugins.NewFromPlugins(names, noPluginConfig{}, inits, admission.DecoratorFunc(admissionmetrics.WithControllerMetrics))
	if err != nil {
		return nil, err
	}
	return admissionmetrics.WithStepMetrics(chain), nil
}

// newServiceResolver resolves a webhook's service reference as
// kube-apiserver: to the Service's ClusterIP (the host must route it: a
// service proxy on this host), or with routeToEndpoints
// (--enable-aggregator-routing) to a ready endpoint of its EndpointSlices;
// the kubernetes Service in default on port 443 is this server itself.
func newServiceResolver(f informers.SharedInformerFactory, loopbackHost string, routeToEndpoints bool) (webhook.ServiceResolver, error) {
	var r webhook.ServiceResolver
	if routeToEndpoints {
		slices, err := newEndpointSliceGetter(f)
		if err != nil {
			return nil, err
		}
		r = endpointResolver{services: f.Core().V1().Services().Lister(), slices: slices}
	} else {
		r = clusterIPResolver{services: f.Core().V1().Services().Lister()}
	}
	if u, err := url.Parse(loopbackHost); err == nil {
		r = loopbackResolver{delegate: r, host: u}
	}
	return r, nil
}
