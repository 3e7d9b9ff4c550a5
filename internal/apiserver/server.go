package apiserver

import (
	"context"
	"crypto"
	"fmt"
	"net"
	"net/http"
	"os"
	"strconv"
	"time"

	"github.com/google/uuid"
	apiextensionsapiserver "k8s.io/apiextensions-apiserver/pkg/apiserver"
	apiextensionsopenapi "k8s.io/apiextensions-apiserver/pkg/generated/openapi"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/apiserver/pkg/endpoints/discovery/aggregated"
	openapinamer "k8s.io/apiserver/pkg/endpoints/openapi"
	genericregistry "k8s.io/apiserver/pkg/registry/generic"
	"k8s.io/apiserver/pkg/registry/rest"
	genericapiserver "k8s.io/apiserver/pkg/server"
	"k8s.io/apiserver/pkg/server/dynamiccertificates"
	genericoptions "k8s.io/apiserver/pkg/server/options"
	serverstorage "k8s.io/apiserver/pkg/server/storage"
	"k8s.io/apiserver/pkg/storage/storagebackend"
	utilcompatibility "k8s.io/apiserver/pkg/util/compatibility"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	restclient "k8s.io/client-go/rest"
	"k8s.io/klog/v2"
	aggregatorapiserver "k8s.io/kube-aggregator/pkg/apiserver"
	aggregatorscheme "k8s.io/kube-aggregator/pkg/apiserver/scheme"
	aggregatoropenapi "k8s.io/kube-aggregator/pkg/generated/openapi"
	"k8s.io/kube-openapi/pkg/common"
	"k8s.io/utils/clock"

	"github.com/svcplane/svcplane/internal/aggregator"
	"github.com/svcplane/svcplane/internal/apiserver/inflight"
	"github.com/svcplane/svcplane/internal/apiserver/localetcd"
	"github.com/svcplane/svcplane/internal/apiserver/openapi"
	"github.com/svcplane/svcplane/internal/apiserver/versionshare"
	"github.com/svcplane/svcplane/internal/auth/bootstrappolicy"
	"github.com/svcplane/svcplane/internal/datadir"
	"github.com/svcplane/svcplane/internal/diskguard"
	"github.com/svcplane/svcplane/internal/etcd"
	"github.com/svcplane/svcplane/internal/kubeconfig"
	"github.com/svcplane/svcplane/internal/pki"
	"github.com/svcplane/svcplane/internal/registry"
	"github.com/svcplane/svcplane/internal/registry/core/service"
	"github.com/svcplane/svcplane/internal/registry/resource"
	"github.com/svcplane/svcplane/internal/version"
)

// httpShutdownTimeout bounds the HTTP server's shutdown at a stop (after
// requests have drained): lingering idle-less connections are closed then.
const httpShutdownTimeout = 10 * time.Second

// Server is a configured, not yet running, API server.
type Server struct {
	Options *Options
	// URL is the https address clients (and the kubeconfig) use.
	URL string
	// Kubeconfig is the path of the admin kubeconfig written into the data dir.
	Kubeconfig string
	// LoopbackConfig is the privileged in-process client configuration.
	LoopbackConfig *restclient.Config
	// AdvertiseAddress is the address announced to the cluster.
	AdvertiseAddress net.IP
	// ServiceAllocators give Services their ClusterIPs and NodePorts;
	// ServiceRepairs are the passes of their repair loops.
	ServiceAllocators *service.Allocators
	ServiceRepairs    []Repairer
	// EtcdEndpoints are the client URLs of the etcd in use (the embedded
	// member's when no --etcd-servers were given).
	EtcdEndpoints []string
	// ServiceAccountKey signs ServiceAccount tokens (the legacy token
	// controller fills Secrets with it).
	ServiceAccountKey crypto.PrivateKey

	// generic is the front server (the aggregator's), whose hooks run
	// the whole chain's; aggregator prepares and runs it.
	generic    *genericapiserver.GenericAPIServer
	aggregator *aggregatorapiserver.APIAggregator
	// stopEvents shuts down the repair loops' event broadcaster.
	stopEvents func()
	etcd       *etcd.Embedded
	ca         *pki.CA
	clientCA   dynamiccertificates.CAContentProvider
	// proxyClientCert/Key: the front-proxy client certificate the
	// aggregator presents to remote APIServices.
	proxyClientCert, proxyClientKey string
	lock                            *datadir.Lock
	// local serves the embedded member's storage in-process (nil with
	// --etcd-servers).
	local *localetcd.Backend
}

// New prepares a server: it starts the embedded etcd when no
// --etcd-servers are given, creates or loads the certificates, opens the
// secure listener, installs every resource and writes the admin kubeconfig.
func New(ctx context.Context, o *Options) (*Server, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(o.PKIDir(), 0o700); err != nil {
		return nil, err
	}
	lock, err := datadir.Acquire(o.DataDir)
	if err != nil {
		return nil, err
	}
	s := &Server{Options: o, Kubeconfig: o.KubeconfigPath(), lock: lock}
	endpoints := o.EtcdServers
	if len(endpoints) == 0 {
		e, err := etcd.Start(ctx, o.DataDir)
		if err != nil {
			lock.Release()
			return nil, err
		}
		s.etcd, endpoints = e, e.Endpoints
	}
	s.EtcdEndpoints = endpoints
	// After the embedded member, which sets grpc's logger for itself.
	quietGRPCLogs()
	if err := s.build(o, endpoints); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

func (s *Server) build(o *Options, endpoints []string) error {
	defs := registry.Definitions()
	scheme, err := NewScheme(defs)
	if err != nil {
		return err
	}
	codecs := serializer.NewCodecFactory(scheme)
	config := genericapiserver.NewRecommendedConfig(codecs)
	config.EffectiveVersion = version.EffectiveVersion{EffectiveVersion: utilcompatibility.DefaultBuildEffectiveVersion()}
	config.ShutdownDelayDuration = 0
	config.ShutdownWatchTerminationGracePeriod = o.ShutdownWatchTerminationGracePeriod

	if s.AdvertiseAddress, err = advertiseAddress(o); err != nil {
		return err
	}
	if err := s.applyServing(o, &config.Config); err != nil {
		return err
	}
	if err := s.applyOpenAPI(&config.Config); err != nil {
		return err
	}
	etcdOpts, err := applyStorage(o, endpoints, defs, scheme, codecs, &config.Config)
	if err != nil {
		return err
	}
	// The embedded member is served in-process (localetcd): every
	// getter's storage goes through s.wrapStorage.
	if s.etcd != nil {
		s.local = localetcd.New(s.etcd.Server())
	}
	// The core's storages come from coreREST; config.RESTOptionsGetter
	// becomes the CustomResourceDefinitions' (newAPIExtensions).
	coreREST := s.wrapStorage(config.RESTOptionsGetter)
	if err := o.StorageSecurity.Audit.ApplyTo(&config.Config); err != nil {
		return fmt.Errorf("audit: %w", err)
	}
	guard := s.diskGuard(o)
	limits := inFlightLimits(&config.Config)
	config.BuildHandlerChainFunc = func(h http.Handler, c *genericapiserver.Config) http.Handler {
		if guard != nil {
			h = guard.Filter(h)
		}
		return genericapiserver.DefaultBuildHandlerChain(inflight.WithLimits(h, limits), c)
	}
	client, err := kubernetes.NewForConfig(config.LoopbackClientConfig)
	if err != nil {
		return err
	}
	config.SharedInformerFactory = informers.NewSharedInformerFactory(client, 10*time.Minute)
	saTokens, err := loadServiceAccountTokens(o)
	if err != nil {
		return err
	}
	s.ServiceAccountKey = saTokens.key
	config.Authentication.APIAudiences = saTokens.audiences
	if config.Authentication.Authenticator, err = newAuthenticator(s.clientCA, config.Authentication.RequestHeaderConfig, o.TokenAuthFile, o.AnonymousAuth,
		saTokens.authenticator(client, config.SharedInformerFactory), saTokens.audiences); err != nil {
		return err
	}
	authz, err := newAuthorizers(o.AuthorizationModes, config.SharedInformerFactory)
	if err != nil {
		return err
	}
	config.Authorization.Authorizer, config.RuleResolver = authz.authorizer, authz.rules
	if config.AdmissionControl, err = newAdmission(config, client, config.SharedInformerFactory, o.enabledAdmissionPlugins(), o.EnableAggregatorRouting); err != nil {
		return err
	}
	conversionResolver, err := newServiceResolver(config.SharedInformerFactory, config.LoopbackClientConfig.Host, o.EnableAggregatorRouting)
	if err != nil {
		return err
	}
	// One aggregated discovery document for the chain (kube-apiserver's
	// servers share it too): the core's groups, the CRDs' and the remote
	// APIServices'.
	config.AggregatedDiscoveryGroupManager = aggregated.NewResourceManager("apis")
	// The aggregator's copy, taken before the core completes its own.
	aggregatorGeneric := config.Config
	crds, err := newAPIExtensions(config, etcdOpts, o.APIServerCount, conversionResolver, s.wrapStorage)
	if err != nil {
		return err
	}
	generic := crds.GenericAPIServer
	byResource := map[string]map[string]rest.Storage{}
	extra := reviewStorages(authz, config.Authentication.Authenticator, config.Authentication.APIAudiences)
	tokens := saTokens.tokenConfig()
	core, named, err := apiGroups(defs, scheme, codecs, coreREST, byResource, authz.escalation(config.SharedInformerFactory), &tokens, extra)
	if err != nil {
		return err
	}
	guardAdmissionParams(defs, config.Authorization.Authorizer, client.Discovery(), byResource)
	wireTokenREST(byResource)
	if err := installKubeletSubresources(core, byResource, o.Kubelet, authz.authorizer); err != nil {
		return err
	}
	saTokens.installOpenIDMetadata(generic, config.ExternalAddress)
	loops := repairLoops{}
	if s.ServiceAllocators, loops, err = wireServices(o, byResource, coreREST, config.SharedInformerFactory, client); err != nil {
		return err
	}
	s.ServiceRepairs, s.stopEvents = loops.passes, loops.stopEvents
	if err := generic.InstallLegacyAPIGroup(genericapiserver.DefaultLegacyAPIPrefix, core); err != nil {
		return err
	}
	if err := generic.InstallAPIGroups(named...); err != nil {
		return err
	}
	dropStaticOpenAPISpecs(core, named)
	s.LoopbackConfig = config.LoopbackClientConfig
	if guard != nil {
		generic.AddPostStartHookOrDie("start-data-dir-disk-guard", func(hc genericapiserver.PostStartHookContext) error {
			go guard.Run(hc)
			return nil
		})
	}
	addBootstrapHooks(generic, client, o, loops)
	addAuthenticationTrustHook(generic, client, newAuthenticationTrust(s.clientCA, config.Authentication.RequestHeaderConfig))
	addStartupMemoryRelease(generic, client)
	generic.AddPostStartHookOrDie(bootstrappolicy.PostStartHookName, func(hc genericapiserver.PostStartHookContext) error {
		return bootstrappolicy.Reconcile(hc, client)
	})
	_, port, err := config.SecureServing.HostPort()
	if err != nil {
		return err
	}
	if err := s.addKubernetesServiceHooks(generic, client, o, coreREST, port); err != nil {
		return err
	}
	// Last: the aggregator takes over the hooks and checks registered
	// on the core so far.
	if s.aggregator, err = aggregator.New(aggregator.Config{
		Generic: aggregatorGeneric, Informers: config.SharedInformerFactory, Etcd: *etcdOpts,
		ProxyClientCertFile: s.proxyClientCert, ProxyClientKeyFile: s.proxyClientKey,
		ServiceResolver: conversionResolver, WrapStorage: s.wrapStorage,
		CRDs: crds.Informers.Apiextensions().V1().CustomResourceDefinitions(),
	}, generic); err != nil {
		return fmt.Errorf("aggregator: %w", err)
	}
	s.generic = s.aggregator.GenericAPIServer
	// The HTTP server's shutdown starts once in-flight requests have
	// drained and watches were told to end; it then only waits for
	// connections to go idle. kube-apiserver allows its request timeout
	// (60 s); an HA start-stop test under load saw, rarely, a connection
	// that never reported idle (no request or stream left on it) hold a
	// stop for the full 60 s.
	s.generic.ShutdownTimeout = httpShutdownTimeout
	return s.writeAdminKubeconfig()
}

// diskGuard returns the low-disk write guard of the embedded etcd's data
// dir, or nil (external etcd, or disabled).
func (s *Server) diskGuard(o *Options) *diskguard.Guard {
	if s.etcd == nil || o.DataDirMinFreeMiB <= 0 {
		return nil
	}
	return diskguard.New(o.DataDir, uint64(o.DataDirMinFreeMiB)<<20, diskguard.StatFS, clock.RealClock{})
}

// applyServing opens the listener with the serving certificate and sets up
// client-certificate and token authentication and the authorizer.
func (s *Server) applyServing(o *Options, c *genericapiserver.Config) error {
	ca, err := pki.LoadOrCreateCA(o.PKIDir(), "svcplane-ca")
	if err != nil {
		return err
	}
	s.ca = ca
	if o.Kubelet.CertFile == "" {
		// kubeadm's apiserver-kubelet-client: the API server's identity
		// towards kubelets.
		if o.Kubelet.CertFile, o.Kubelet.KeyFile, err = ca.EnsureClient(o.PKIDir(), "apiserver-kubelet-client", UserKubeletClient, nil); err != nil {
			return err
		}
	}
	certFile, keyFile, err := ca.EnsureServing(o.PKIDir(), "apiserver", servingHosts(o, s.AdvertiseAddress))
	if err != nil {
		return err
	}
	ss := genericoptions.NewSecureServingOptions()
	ss.BindAddress = net.ParseIP(o.BindAddress)
	ss.BindPort = o.SecurePort
	ss.ServerCert.CertKey = genericoptions.CertKey{CertFile: certFile, KeyFile: keyFile}
	ss.ServerCert.CertDirectory = ""
	if o.SecurePort == 0 {
		// Port 0 means "pick a free one" here (tests, side-by-side servers);
		// the generic options would read it as "serving disabled".
		addr := net.JoinHostPort(o.BindAddress, "0")
		if ss.Listener, ss.BindPort, err = genericoptions.CreateListener("tcp", addr, net.ListenConfig{}); err != nil {
			return err
		}
	}
	if err := ss.ApplyTo(&c.SecureServing); err != nil {
		return err
	}
	if c.LoopbackClientConfig, err = loopback(c.SecureServing); err != nil {
		return err
	}
	// In-process clients need no deprecation warnings (Endpoints, …) in
	// the log.
	c.LoopbackClientConfig.WarningHandler = restclient.NoWarnings{}
	clientCA, err := dynamiccertificates.NewDynamicCAContentFromFile("client-ca-bundle", ca.CertFile)
	if err != nil {
		return err
	}
	if err := c.Authentication.ApplyClientCert(clientCA, c.SecureServing); err != nil {
		return err
	}
	// The authenticator is built once the informers exist (ServiceAccount
	// tokens read them).
	s.clientCA = clientCA
	if c.Authentication.RequestHeaderConfig, err = s.applyFrontProxy(o); err != nil {
		return err
	}
	if rh := c.Authentication.RequestHeaderConfig; rh != nil {
		// The front proxy's certificate verifies in the TLS handshake too.
		if err := c.Authentication.ApplyClientCert(rh.CAContentProvider, c.SecureServing); err != nil {
			return err
		}
	}
	_, port, err := c.SecureServing.HostPort()
	if err != nil {
		return err
	}
	c.PublicAddress = s.AdvertiseAddress
	c.ExternalAddress = net.JoinHostPort(s.AdvertiseAddress.String(), strconv.Itoa(port))
	s.URL = "https://" + net.JoinHostPort(clientHost(o), strconv.Itoa(port))
	return nil
}

// loopbackCertMaxAge is upstream's loopback certificate lifetime (about three
// years); a restart makes a new one.
const loopbackCertMaxAge = (3*365 + 1) * 24 * time.Hour

// loopback makes the privileged in-process client: the server presents an
// in-memory certificate for the loopback server name, and the client trusts
// only it and authenticates with a random token (which Complete authorizes).
func loopback(info *genericapiserver.SecureServingInfo) (*restclient.Config, error) {
	name := genericapiserver.LoopbackClientServerNameOverride
	certPEM, keyPEM, err := pki.SelfSigned(name, loopbackCertMaxAge)
	if err != nil {
		return nil, err
	}
	cert, err := dynamiccertificates.NewStaticSNICertKeyContent("self-signed loopback", certPEM, keyPEM, name)
	if err != nil {
		return nil, err
	}
	info.SNICerts = append([]dynamiccertificates.SNICertKeyContentProvider{cert}, info.SNICerts...)
	return info.NewLoopbackClientConfig(uuid.New().String(), certPEM)
}

func (s *Server) applyOpenAPI(c *genericapiserver.Config) error {
	external, err := NewExternalScheme()
	if err != nil {
		return err
	}
	namer := openapinamer.NewDefinitionNamer(external, apiextensionsapiserver.Scheme, aggregatorscheme.Scheme)
	c.OpenAPIConfig = genericapiserver.DefaultOpenAPIConfig(openAPIDefinitions, namer)
	c.OpenAPIConfig.Info.Title = "Kubernetes"
	c.OpenAPIV3Config = genericapiserver.DefaultOpenAPIV3Config(openAPIDefinitions, namer)
	c.OpenAPIV3Config.Info.Title = "Kubernetes"
	return nil
}

// openAPIDefinitions are svcplane's generated definitions,
// apiextensions-apiserver's (CustomResourceDefinition and its parts) and
// kube-aggregator's (APIService).
func openAPIDefinitions(ref common.ReferenceCallback) map[string]common.OpenAPIDefinition {
	defs := openapi.GetOpenAPIDefinitions(ref)
	for _, more := range []map[string]common.OpenAPIDefinition{
		apiextensionsopenapi.GetOpenAPIDefinitions(ref), aggregatoropenapi.GetOpenAPIDefinitions(ref),
	} {
		for name, def := range more {
			if _, ok := defs[name]; !ok {
				defs[name] = def
			}
		}
	}
	return defs
}

// applyStorage points the generic registry at etcd with kube-apiserver's
// key layout and protobuf values.
// It returns the etcd options (the CustomResourceDefinitions' storage is
// derived from them).
func applyStorage(o *Options, endpoints []string, defs []*resource.Definition, scheme *runtime.Scheme, codecs serializer.CodecFactory, c *genericapiserver.Config) (*genericoptions.EtcdOptions, error) {
	etcdOpts := genericoptions.NewEtcdOptions(storagebackend.NewDefaultConfig(o.EtcdPrefix, nil))
	etcdOpts.StorageConfig.Transport.ServerList = endpoints
	// Also for the embedded member: the compactor records each compaction
	// under compact_rev_key, which the watch cache watches to expire its
	// snapshots (ListFromCacheSnapshot); etcd's own periodic compaction
	// would leave continue tokens served from the cache forever.
	etcdOpts.StorageConfig.CompactionInterval = o.EtcdCompactionInterval
	o.StorageSecurity.applyEtcdSecurity(etcdOpts)
	etcdOpts.DefaultStorageMediaType = runtime.ContentTypeProtobuf
	if err := applyWatchCacheSizes(etcdOpts); err != nil {
		return nil, err
	}
	resources := serverstorage.NewResourceConfig()
	prefixes := map[schema.GroupResource]string{}
	for _, def := range defs {
		resources.EnableVersions(def.ServedVersions()...)
		prefixes[def.GroupResource()] = def.Prefix()
	}
	encoding := serverstorage.NewDefaultResourceEncodingConfigForEffectiveVersion(scheme, c.EffectiveVersion)
	for _, def := range defs {
		if to := def.StoredAs; to != nil {
			// The stored resource's encoding is fixed so that a cohabiting
			// type (which the scheme does not know in the stored group)
			// can be given as the example object.
			encoding.SetResourceEncoding(to.GroupResource(), to.GroupVersion(),
				schema.GroupVersion{Group: to.Group, Version: runtime.APIVersionInternal})
		}
	}
	factory := serverstorage.NewDefaultStorageFactory(etcdOpts.StorageConfig, runtime.ContentTypeProtobuf,
		codecs, encoding, resources, prefixes)
	for _, def := range defs {
		if def.StoredAs != nil {
			factory.AddCohabitatingResources(def.StoredAs.GroupResource(), def.GroupResource())
		}
	}
	return etcdOpts, etcdOpts.ApplyWithStorageFactoryTo(factory, c)
}

// Run serves until ctx is cancelled, then shuts down gracefully (pre-shutdown
// hooks run, in-flight requests finish) and Closes the server: the repair
// loops' event broadcaster, the embedded etcd and the data dir lock.
func (s *Server) Run(ctx context.Context) error {
	defer s.Close()
	prepared, err := s.aggregator.PrepareRun()
	if err != nil {
		return err
	}
	return prepared.Run(ctx)
}

// Close releases what New took (the repair loops' event broadcaster, the
// embedded etcd, the data dir lock) for a server that will not Run; Run
// calls it when it returns. Calling it again does nothing.
func (s *Server) Close() {
	if s.stopEvents != nil {
		s.stopEvents()
		s.stopEvents = nil
	}
	s.closeEtcd()
}

// wrapStorage is getter with the embedded member's in-process storage
// (localetcd), or with --etcd-servers getter's storage; with either, the
// versions in a watch cache share memory (versionshare).
func (s *Server) wrapStorage(getter genericregistry.RESTOptionsGetter) genericregistry.RESTOptionsGetter {
	if s.local == nil {
		return versionshare.WrapGetter(getter, genericregistry.NewRawStorage)
	}
	return versionshare.WrapGetter(getter, s.local.Raw)
}

// AddPostStartHook registers a hook that runs once the server serves.
func (s *Server) AddPostStartHook(name string, hook genericapiserver.PostStartHookFunc) error {
	return s.generic.AddPostStartHook(name, hook)
}

// AddPreShutdownHook registers a hook that runs before the server stops.
func (s *Server) AddPreShutdownHook(name string, hook genericapiserver.PreShutdownHookFunc) error {
	return s.generic.AddPreShutdownHook(name, hook)
}

// CA returns the cluster CA (for minting client credentials).
func (s *Server) CA() *pki.CA { return s.ca }

// closeEtcd stops the embedded member and releases the data directory.
func (s *Server) closeEtcd() {
	if s.local != nil {
		s.local.Close()
		s.local = nil
	}
	if s.etcd != nil {
		grpcStopping.Store(true)
		s.etcd.Close()
		s.etcd = nil
	}
	s.lock.Release()
}

// writeAdminKubeconfig mints the admin's credentials (user
// kubernetes-admin in group system:masters) into <data-dir>/kubeconfig.
// Other identities' credentials (the node agent's) are minted by whoever
// runs them, with CA.
func (s *Server) writeAdminKubeconfig() error {
	cert, key, err := s.ca.EnsureClient(s.Options.PKIDir(), "admin", "kubernetes-admin", []string{GroupMasters})
	if err != nil {
		return err
	}
	return kubeconfig.Write(s.Kubeconfig, kubeconfig.Config{
		Server: s.URL, CAFile: s.ca.CertFile, User: "kubernetes-admin", CertFile: cert, KeyFile: key,
	})
}

// advertiseAddress is --advertise-address, else a specific --bind-address,
// else the address of the host's default-route interface (loopback when the
// host has none).
func advertiseAddress(o *Options) (net.IP, error) {
	if o.AdvertiseAddress != "" {
		return net.ParseIP(o.AdvertiseAddress), nil
	}
	ip, err := utilnet.ResolveBindAddress(net.ParseIP(o.BindAddress))
	if err != nil {
		klog.Warningf("no --advertise-address and no default-route interface (%v); advertising 127.0.0.1", err)
		return net.ParseIP("127.0.0.1"), nil
	}
	return ip, nil
}

// clientHost is the host the kubeconfig points at: loopback when bound to
// every interface, else the bind address.
func clientHost(o *Options) string {
	ip := net.ParseIP(o.BindAddress)
	if ip.IsUnspecified() {
		if ip.To4() == nil {
			return "::1"
		}
		return "127.0.0.1"
	}
	return ip.String()
}

func servingHosts(o *Options, advertise net.IP) []string {
	hosts := []string{"localhost", "127.0.0.1", "kubernetes", "kubernetes.default", "kubernetes.default.svc",
		"kubernetes.default.svc.cluster.local", advertise.String(), clientHost(o)}
	if cidrs, err := ServiceCIDRs(o.ServiceClusterIPRange); err == nil {
		// The kubernetes Service's ClusterIP, for in-cluster clients.
		hosts = append(hosts, cidrs[0].Addr().Next().String())
	}
	if h, err := os.Hostname(); err == nil {
		hosts = append(hosts, h)
	}
	if cidrs, err := ServiceCIDRs(o.ServiceClusterIPRange); err == nil {
		for _, c := range cidrs {
			hosts = append(hosts, c.Addr().Next().String())
		}
	}
	return hosts
}
