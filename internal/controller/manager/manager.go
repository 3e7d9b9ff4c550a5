package manager

import (
	"context"
	"crypto"
	"fmt"
	"net/netip"
	"os"
	"slices"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	validatingpolicy "k8s.io/apiserver/pkg/admission/plugin/policy/validating"
	"k8s.io/apiserver/pkg/cel/openapi/resolver"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	sa "github.com/svcplane/svcplane/internal/auth/serviceaccount"
	"github.com/svcplane/svcplane/internal/controller/clusterroleaggregation"
	"github.com/svcplane/svcplane/internal/controller/deployment"
	"github.com/svcplane/svcplane/internal/controller/endpoints"
	"github.com/svcplane/svcplane/internal/controller/endpointslice"
	"github.com/svcplane/svcplane/internal/controller/garbagecollector"
	"github.com/svcplane/svcplane/internal/controller/mirroring"
	"github.com/svcplane/svcplane/internal/controller/namespace"
	"github.com/svcplane/svcplane/internal/controller/nodeipam"
	"github.com/svcplane/svcplane/internal/controller/nodelifecycle"
	"github.com/svcplane/svcplane/internal/controller/replicaset"
	"github.com/svcplane/svcplane/internal/controller/replication"
	"github.com/svcplane/svcplane/internal/controller/rootcacertpublisher"
	"github.com/svcplane/svcplane/internal/controller/scheduler"
	"github.com/svcplane/svcplane/internal/controller/serviceaccount"
	"github.com/svcplane/svcplane/internal/controller/serviceaccounttoken"
	"github.com/svcplane/svcplane/internal/controller/servicecidr"
	"github.com/svcplane/svcplane/internal/controller/validatingadmissionpolicystatus"
	"github.com/svcplane/svcplane/internal/informerutil"
)

// LeaseName is the leader-election Lease in kube-system.
const LeaseName = "svcplane-controller-manager"

// Config holds the controllers' own settings.
type Config struct {
	// ClusterCIDRs (--cluster-cidr) are carved into node pod CIDRs of
	// NodeCIDRMaskV4/V6 bits; none disables node IPAM.
	ClusterCIDRs   []netip.Prefix
	NodeCIDRMaskV4 int
	NodeCIDRMaskV6 int
	// NodeLifecycle are the node lifecycle controller's periods
	// (--node-monitor-period, --node-monitor-grace-period,
	// --node-startup-grace-period).
	NodeLifecycle nodelifecycle.Config
	// RootCA is the PEM bundle that verifies the API server, published in
	// every namespace's kube-root-ca.crt (kube-controller-manager's
	// --root-ca-file); empty disables root-ca-cert-publisher.
	RootCA []byte
	// ServiceAccountKey signs the tokens of legacy token Secrets
	// (kube-controller-manager's --service-account-private-key-file); nil
	// disables serviceaccount-token-controller.
	ServiceAccountKey crypto.PrivateKey
}

// Deps is what controllers are built from.
type Deps struct {
	Config    Config
	Client    kubernetes.Interface
	Dynamic   dynamic.Interface
	Metadata  metadata.Interface
	Informers informers.SharedInformerFactory
	// InformersStarted is closed once every controller has asked for
	// its Informers and they have been started.
	InformersStarted <-chan struct{}
}

// Controller is one named controller: Name is kube-controller-manager's
// (scheduler: kube-scheduler's), Aliases its accepted old names.
type Controller struct {
	Name  string
	Start func(ctx context.Context, d Deps)
	// ServiceAccount is the kube-system ServiceAccount the controller acts
	// as (kube-controller-manager's with --use-service-account-credentials,
	// bound to its system:controller:* role); User instead names a user
	// (the scheduler's system:kube-scheduler).
	ServiceAccount, User string
	// Aliases are kube-controller-manager's aliases, accepted silently as
	// it does; Deprecated are svcplane's own former names, accepted with
	// a warning.
	Aliases, Deprecated []string
}

// All lists every controller, in start order.
func All() []Controller {
	return []Controller{
		{Name: "namespace-controller", ServiceAccount: "namespace-controller", Aliases: []string{"namespace"}, Start: func(ctx context.Context, d Deps) {
			go namespace.New(d.Client, d.Dynamic, d.Client.Discovery(), d.Informers.Core().V1().Namespaces()).Run(ctx, 2)
		}},
		{Name: "serviceaccount-controller", ServiceAccount: "service-account-controller", Aliases: []string{"serviceaccount"}, Start: func(ctx context.Context, d Deps) {
			i := d.Informers.Core().V1()
			go serviceaccount.New(d.Client, i.Namespaces(), i.ServiceAccounts(), serviceaccount.DefaultServiceAccounts).Run(ctx, 1)
		}},
		// No own identity: kube-controller-manager runs the tokens
		// controller with its root credentials (the other controllers'
		// ServiceAccount credentials depended on it).
		{Name: "serviceaccount-token-controller", Aliases: []string{"serviceaccount-token"}, Start: func(ctx context.Context, d Deps) {
			if d.Config.ServiceAccountKey == nil {
				klog.InfoS("No service account key; serviceaccount-token-controller not started")
				return
			}
			gen, err := sa.NewGenerator(sa.LegacyIssuer, d.Config.ServiceAccountKey)
			if err != nil {
				klog.ErrorS(err, "serviceaccount-token-controller not started")
				return
			}
			i := d.Informers.Core().V1()
			go serviceaccounttoken.New(d.Client, i.Secrets(), i.ServiceAccounts(), gen, d.Config.RootCA).Run(ctx, 5)
		}},
		{Name: "root-ca-certificate-publisher-controller", ServiceAccount: "root-ca-cert-publisher", Aliases: []string{"root-ca-cert-publisher"}, Start: func(ctx context.Context, d Deps) {
			if len(d.Config.RootCA) == 0 {
				klog.InfoS("No root CA bundle; root-ca-cert-publisher not started")
				return
			}
			i := d.Informers.Core().V1()
			go rootcacertpublisher.New(d.Client, i.Namespaces(), i.ConfigMaps(), d.Config.RootCA).Run(ctx, 1)
		}},
		{Name: "clusterrole-aggregation-controller", ServiceAccount: "clusterrole-aggregation-controller", Aliases: []string{"clusterrole-aggregation"}, Start: func(ctx context.Context, d Deps) {
			go clusterroleaggregation.New(d.Client, d.Informers.Rbac().V1().ClusterRoles()).Run(ctx, 5)
		}},
		{Name: "validatingadmissionpolicy-status-controller", ServiceAccount: "validatingadmissionpolicy-status-controller", Start: func(ctx context.Context, d Deps) {
			checker := &validatingpolicy.TypeChecker{
				SchemaResolver: &resolver.ClientDiscoveryResolver{Discovery: d.Client.Discovery()},
				RestMapper:     restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(d.Client.Discovery())),
			}
			go validatingadmissionpolicystatus.New(d.Client, d.Informers.Admissionregistration().V1().ValidatingAdmissionPolicies(), checker).Run(ctx, 5)
		}},
		{Name: "service-cidr-controller", ServiceAccount: "service-cidrs-controller", Deprecated: []string{"service-cidr"}, Start: func(ctx context.Context, d Deps) {
			n := d.Informers.Networking().V1()
			go servicecidr.New(d.Client, n.ServiceCIDRs(), n.IPAddresses(), clock.RealClock{}).Run(ctx, 1)
		}},
		{Name: "node-ipam-controller", ServiceAccount: "node-controller", Aliases: []string{"nodeipam"}, Start: func(ctx context.Context, d Deps) {
			if len(d.Config.ClusterCIDRs) == 0 {
				return
			}
			c, err := nodeipam.New(d.Client, d.Informers.Core().V1().Nodes(), d.Config.ClusterCIDRs, d.Config.NodeCIDRMaskV4, d.Config.NodeCIDRMaskV6)
			if err != nil {
				klog.ErrorS(err, "Node IPAM not started")
				return
			}
			go c.Run(ctx, 1)
		}},
		{Name: "node-lifecycle-controller", ServiceAccount: "node-controller", Aliases: []string{"nodelifecycle"}, Start: func(ctx context.Context, d Deps) {
			i := d.Informers
			go nodelifecycle.New(d.Client, i.Core().V1().Nodes(), i.Coordination().V1().Leases(), i.Core().V1().Pods(),
				clock.RealClock{}, d.Config.NodeLifecycle).Run(ctx, 2)
		}},
		{Name: "scheduler", User: "system:kube-scheduler", Start: func(ctx context.Context, d Deps) {
			go scheduler.New(d.Client, d.Informers.Core().V1().Pods(), d.Informers.Core().V1().Nodes()).Run(ctx, 1)
		}},
		{Name: "replicaset-controller", ServiceAccount: "replicaset-controller", Aliases: []string{"replicaset"}, Start: func(ctx context.Context, d Deps) {
			go replicaset.New(d.Client, d.Informers.Apps().V1().ReplicaSets(), d.Informers.Core().V1().Pods(), clock.RealClock{}).Run(ctx, 5)
		}},
		{Name: "replicationcontroller-controller", ServiceAccount: "replication-controller", Aliases: []string{"replicationcontroller"}, Start: func(ctx context.Context, d Deps) {
			go replication.New(d.Client, d.Informers.Core().V1().ReplicationControllers(), d.Informers.Core().V1().Pods(), clock.RealClock{}).Run(ctx, 5)
		}},
		{Name: "deployment-controller", ServiceAccount: "deployment-controller", Aliases: []string{"deployment"}, Start: func(ctx context.Context, d Deps) {
			go deployment.New(d.Client, d.Informers.Apps().V1().Deployments(), d.Informers.Apps().V1().ReplicaSets(), clock.RealClock{}).Run(ctx, 5)
		}},
		{Name: "garbage-collector-controller", ServiceAccount: "generic-garbage-collector", Aliases: []string{"garbagecollector"}, Start: func(ctx context.Context, d Deps) {
			go func() {
				gc := garbagecollector.New(d.Metadata, d.Client.Discovery()).
					WithShared(garbagecollector.Shared{Factory: d.Informers, Started: d.InformersStarted})
				if err := gc.Run(ctx, garbagecollector.ConcurrentGCSyncs); err != nil {
					klog.ErrorS(err, "Garbage collector stopped")
				}
			}()
		}},
		{Name: "endpoints-controller", ServiceAccount: "endpoint-controller", Aliases: []string{"endpoint"}, Deprecated: []string{"endpoints"}, Start: func(ctx context.Context, d Deps) {
			i := d.Informers.Core().V1()
			go endpoints.New(d.Client, i.Services(), i.Pods(), i.Endpoints()).Run(ctx, 5)
		}},
		{Name: "endpointslice-mirroring-controller", ServiceAccount: "endpointslicemirroring-controller", Aliases: []string{"endpointslicemirroring"}, Deprecated: []string{"endpointslice-mirroring"}, Start: func(ctx context.Context, d Deps) {
			i := d.Informers
			go mirroring.New(d.Client, i.Core().V1().Services(), i.Core().V1().Endpoints(), i.Discovery().V1().EndpointSlices()).Run(ctx, 2)
		}},
		{Name: "endpointslice-controller", ServiceAccount: "endpointslice-controller", Aliases: []string{"endpointslice"}, Start: func(ctx context.Context, d Deps) {
			i := d.Informers
			go endpointslice.New(d.Client, i.Core().V1().Services(), i.Core().V1().Pods(),
				i.Discovery().V1().EndpointSlices(), i.Core().V1().Nodes()).Run(ctx, 5)
		}},
	}
}

// Select applies --controllers to All: "*" is every controller, "name"
// adds one, "-name" removes one; a name is kube-controller-manager's or
// one of its aliases (svcplane's former names are accepted with a
// deprecation warning); unknown names are an error.
func Select(flag []string) ([]Controller, error) {
	all := All()
	canonical := map[string]string{}
	var names []string
	for _, c := range all {
		names = append(names, c.Name)
		canonical[c.Name] = c.Name
		for _, a := range c.Aliases {
			canonical[a] = c.Name
		}
		for _, d := range c.Deprecated {
			canonical[d] = c.Name
		}
	}
	enabled := map[string]bool{}
	for _, f := range flag {
		f = strings.TrimSpace(f)
		on := !strings.HasPrefix(f, "-")
		name := strings.TrimPrefix(f, "-")
		if f == "*" {
			for _, n := range names {
				enabled[n] = true
			}
			continue
		}
		c, ok := canonical[name]
		if !ok {
			return nil, fmt.Errorf("%q is not in the list of known controllers: %s", f, strings.Join(names, ", "))
		}
		if deprecated(all, name) {
			klog.Warningf("--controllers: %q is deprecated, use %q (kube-controller-manager's name)", name, c)
		}
		enabled[c] = on
	}
	var out []Controller
	for _, c := range all {
		if enabled[c.Name] {
			out = append(out, c)
		}
	}
	return out, nil
}

func deprecated(all []Controller, name string) bool {
	for _, c := range all {
		if slices.Contains(c.Deprecated, name) {
			return true
		}
	}
	return false
}

// Run campaigns for the Lease and, while leading, runs controllers until
// ctx ends; losing the lease stops them. cfg is the controller manager's
// own client config (its Lease, the shared informers); with creds each
// controller acts as its own identity (Controller.ServiceAccount or User),
// as kube-controller-manager's --use-service-account-credentials.
func Run(ctx context.Context, cfg *rest.Config, conf Config, controllers []Controller, identity string, creds Credentials) error {
	if len(controllers) == 0 {
		return nil
	}
	client, dyn, meta, err := clients(cfg)
	if err != nil {
		return err
	}
	if identity == "" {
		host, _ := os.Hostname()
		identity = fmt.Sprintf("%s_%d", host, os.Getpid())
	}
	lock := &resourcelock.LeaseLock{
		LeaseMeta:  metav1.ObjectMeta{Namespace: metav1.NamespaceSystem, Name: LeaseName},
		Client:     client.CoordinationV1(),
		LockConfig: resourcelock.ResourceLockConfig{Identity: identity},
	}
	deps := &depsFor{root: Deps{Config: conf, Client: client, Dynamic: dyn, Metadata: meta}, creds: creds, byID: map[string]Deps{}}
	// Campaign again after losing the lease, until ctx ends.
	for ctx.Err() == nil {
		runLeading(ctx, lock, identity, controllers, deps)
	}
	return nil
}

// clients are a config's typed client, speaking protobuf as
// kube-controller-manager's (--kube-api-content-type), and its dynamic
// and metadata clients (JSON).
func clients(cfg *rest.Config) (kubernetes.Interface, dynamic.Interface, metadata.Interface, error) {
	pcfg := rest.CopyConfig(cfg)
	pcfg.ContentType = runtime.ContentTypeProtobuf
	pcfg.AcceptContentTypes = runtime.ContentTypeProtobuf + "," + runtime.ContentTypeJSON
	client, err := kubernetes.NewForConfig(pcfg)
	if err != nil {
		return nil, nil, nil, err
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, nil, nil, err
	}
	meta, err := metadata.NewForConfig(cfg)
	if err != nil {
		return nil, nil, nil, err
	}
	return client, dyn, meta, nil
}

func runLeading(ctx context.Context, lock resourcelock.Interface, identity string, controllers []Controller, deps *depsFor) {
	leaderelection.RunOrDie(ctx, leaderelection.LeaderElectionConfig{
		Lock: lock, Name: LeaseName, ReleaseOnCancel: true,
		LeaseDuration: 15 * time.Second, RenewDeadline: 10 * time.Second, RetryPeriod: 2 * time.Second,
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: func(ctx context.Context) {
				klog.InfoS("Leading; starting controllers", "identity", identity, "controllers", len(controllers))
				if deps.creds != nil {
					ensureServiceAccounts(ctx, deps.root.Client, controllers)
				}
				// As kube-controller-manager: no controller reads managedFields;
				// nor pods' volumes and containers' details (ForControllers).
				// Sibling pods share what they hold in common (ShareSiblings).
				deps.root.Informers = informers.NewSharedInformerFactoryWithOptions(deps.root.Client, 10*time.Minute,
					informers.WithTransform(informerutil.ShareSiblings(informerutil.ForControllers)))
				started := make(chan struct{})
				deps.root.InformersStarted = started
				for _, c := range controllers {
					c.Start(ctx, deps.get(c))
				}
				deps.root.Informers.Start(ctx.Done())
				close(started)
			},
			OnStoppedLeading: func() { klog.InfoS("Stopped leading; controllers stopped", "identity", identity) },
		},
	})
}
