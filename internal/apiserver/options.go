package apiserver

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/pflag"
	genericoptions "k8s.io/apiserver/pkg/server/options"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	cliflag "k8s.io/component-base/cli/flag"

	"github.com/svcplane/svcplane/internal/allocator/ipallocator"
	"github.com/svcplane/svcplane/internal/allocator/portallocator"
	"github.com/svcplane/svcplane/internal/bootstrap/reconcilers"
	"github.com/svcplane/svcplane/internal/kubeletclient"
)

// Options are the API server's settings, shared by `svcplane server` and
// `svcplane up`. The controller manager's and the local nodes' settings
// are internal/plane's.
type Options struct {
	DataDir          string
	SecurePort       int
	BindAddress      string
	AdvertiseAddress string
	EtcdServers      []string
	EtcdPrefix       string
	// EtcdCompactionInterval: history older than this is compacted away
	// by the API server's compactor (kube-apiserver's), for the embedded
	// member as for an external etcd; 0 never compacts.
	EtcdCompactionInterval time.Duration
	ServiceClusterIPRange  string
	ServiceIPAllocator     string
	ServiceNodePortRange   string
	RepairInterval         time.Duration
	TokenAuthFile          string
	// AnonymousAuth: requests without credentials are system:anonymous
	// (kube-apiserver's default), which may read /healthz, /livez,
	// /readyz and /version only.
	AnonymousAuth bool
	// AuthorizationModes (kube-apiserver's --authorization-mode): the
	// authorizers after system:masters, in order.
	AuthorizationModes []string
	// DataDirMinFreeMiB: with the embedded etcd, API writes are refused
	// while the data dir's filesystem has less free (0: never).
	DataDirMinFreeMiB int

	// EnableAggregatorRouting (kube-apiserver's flag): APIServices and
	// webhooks given by a service reference are called at a ready
	// endpoint of the Service instead of its ClusterIP (which only a
	// service proxy on this host makes reachable).
	EnableAggregatorRouting bool
	// EnableAdmissionPlugins and DisableAdmissionPlugins are
	// kube-apiserver's flags over svcplane's plugins (all on by default).
	EnableAdmissionPlugins, DisableAdmissionPlugins []string

	// ShutdownWatchTerminationGracePeriod: at a stop, open watches are
	// ended and drained for at most this long (0: they are not tracked,
	// and the stop waits for them up to the 60 s request timeout).
	ShutdownWatchTerminationGracePeriod time.Duration

	EndpointReconcilerType    string
	APIServerCount            int
	KubernetesServiceNodePort int

	// StorageSecurity: etcd TLS, encryption at rest, audit.
	StorageSecurity StorageSecurity

	// ServiceAccounts: the ServiceAccount token keys, issuers, audiences.
	ServiceAccounts ServiceAccountOptions

	// Kubelet: how pods/log, exec, attach, portforward and nodes/proxy
	// reach kubelets (kube-apiserver's --kubelet-* flags).
	Kubelet kubeletclient.Config

	// RequestHeader (kube-apiserver's --requestheader-* flags): who may
	// assert a user in X-Remote-* headers (a front proxy presenting a
	// certificate of that CA with an allowed name). ProxyClientCertFile
	// and ProxyClientKeyFile: the certificate the aggregator presents to
	// remote APIServices. With none of them given, svcplane makes
	// kubeadm's front-proxy-ca and front-proxy-client in the PKI dir and
	// kubeadm's header names.
	RequestHeader                           genericoptions.RequestHeaderAuthenticationOptions
	ProxyClientCertFile, ProxyClientKeyFile string
}

// Service IP allocator modes.
const (
	AllocatorIPAddress = "ipaddress"
	AllocatorBitmap    = "bitmap"
)

// NewOptions returns the defaults (kube-apiserver's where they exist).
func NewOptions() *Options {
	return &Options{
		StorageSecurity: NewStorageSecurity(),
		ServiceAccounts: NewServiceAccountOptions(),
		Kubelet:         kubeletclient.DefaultConfig(),
		DataDir:         "svcplane-data",
		SecurePort:      6443,
		AnonymousAuth:   true,
		// kubeadm's (kube-apiserver's own default is AlwaysAllow).
		AuthorizationModes: []string{ModeNode, ModeRBAC},
		// kube-apiserver's default is 0; a svcplane stopped with a
		// `kubectl get -w` open would then take a minute.
		ShutdownWatchTerminationGracePeriod: 2 * time.Second,
		BindAddress:                         "0.0.0.0",
		EtcdPrefix:                          "/registry",
		EtcdCompactionInterval:              5 * time.Minute,
		ServiceClusterIPRange:               "10.96.0.0/12",
		ServiceIPAllocator:                  AllocatorIPAddress,
		ServiceNodePortRange:                "30000-32767",
		RepairInterval:                      3 * time.Minute,
		DataDirMinFreeMiB:                   256,

		EndpointReconcilerType: reconcilers.TypeLease,
		APIServerCount:         1,
	}
}

// AddFlags registers the options as command-line flags in
// kube-apiserver's sections: generic, etcd, secure serving,
// authentication, auditing.
func (o *Options) AddFlags(fss *cliflag.NamedFlagSets) {
	fs := fss.FlagSet("generic")
	fs.StringVar(&o.DataDir, "data-dir", o.DataDir, "Directory for certificates, the kubeconfig and the embedded etcd's data.")
	fs.StringVar(&o.AdvertiseAddress, "advertise-address", o.AdvertiseAddress, "The IP address on which to advertise the apiserver to members of the cluster. If blank, the --bind-address (or the host's default-route address) is used.")
	fs.DurationVar(&o.ShutdownWatchTerminationGracePeriod, "shutdown-watch-termination-grace-period", o.ShutdownWatchTerminationGracePeriod, "This option, if set, represents the maximum amount of grace period the apiserver will wait for active watch request(s) to drain during the graceful server shutdown window. (svcplane's default is 2s: with kube-apiserver's 0, a stop with a watch open waits for the request timeout.)")
	fs.StringVar(&o.ServiceClusterIPRange, "service-cluster-ip-range", o.ServiceClusterIPRange, "A CIDR notation IP range (or two, comma separated, for dual-stack) from which to assign service cluster IPs.")
	fs.StringVar(&o.ServiceIPAllocator, "service-ip-allocator", o.ServiceIPAllocator, "How ClusterIPs are recorded: 'ipaddress' (an IPAddress object per IP, ranges from ServiceCIDR objects) or 'bitmap' (the legacy allocation map in etcd).")
	fs.StringVar(&o.ServiceNodePortRange, "service-node-port-range", o.ServiceNodePortRange, "A port range to reserve for services with NodePort visibility, e.g. '30000-32767'. Inclusive at both ends of the range.")
	fs.DurationVar(&o.RepairInterval, "repair-interval", o.RepairInterval, "How often the ClusterIP and NodePort repair loops check allocations against the Services.")
	fs.StringVar(&o.EndpointReconcilerType, "endpoint-reconciler-type", o.EndpointReconcilerType, "Use an endpoint reconciler (master-count, lease, none).")
	fs.IntVar(&o.APIServerCount, "apiserver-count", o.APIServerCount, "The number of apiservers running in the cluster, must be a positive number. (In use when --endpoint-reconciler-type=master-count is enabled.)")
	fs.IntVar(&o.KubernetesServiceNodePort, "kubernetes-service-node-port", o.KubernetesServiceNodePort, "If non-zero, the Kubernetes master service (which apiserver creates/maintains) will be of type NodePort, using this as the value of the port. If zero, the Kubernetes master service will be of type ClusterIP.")
	// kube-apiserver's --feature-gates: the gates of k8s.io/apiserver
	// (the watch cache, storage, admission) that the server runs on.
	utilfeature.DefaultMutableFeatureGate.AddFlag(fs)
	fs = fss.FlagSet("etcd")
	fs.StringSliceVar(&o.EtcdServers, "etcd-servers", o.EtcdServers, "List of etcd servers to connect with (scheme://ip:port), comma separated. Empty runs an embedded etcd in --data-dir.")
	fs.StringVar(&o.EtcdPrefix, "etcd-prefix", o.EtcdPrefix, "The prefix to prepend to all resource paths in etcd.")
	fs.DurationVar(&o.EtcdCompactionInterval, "etcd-compaction-interval", o.EtcdCompactionInterval, "The interval of compaction requests. If 0, the compaction request from apiserver is disabled.")
	fs.IntVar(&o.DataDirMinFreeMiB, "data-dir-min-free-mib", o.DataDirMinFreeMiB, "With the embedded etcd: refuse API writes (503, reads go on) while the --data-dir filesystem has fewer MiB free, so etcd never meets a full disk; 0 disables.")
	fs = fss.FlagSet("secure serving")
	fs.IntVar(&o.SecurePort, "secure-port", o.SecurePort, "The port on which to serve HTTPS with authentication and authorization (0 picks a free port).")
	fs.StringVar(&o.BindAddress, "bind-address", o.BindAddress, "The IP address on which to listen for the --secure-port port.")
	fss.FlagSet("authentication").BoolVar(&o.AnonymousAuth, "anonymous-auth", o.AnonymousAuth, "Enables anonymous requests to the secure port of the API server. Requests that are not rejected by another authentication method are treated as anonymous requests. Anonymous requests have a username of system:anonymous, and a group name of system:unauthenticated.")
	fss.FlagSet("authentication").StringVar(&o.TokenAuthFile, "token-auth-file", o.TokenAuthFile, "If set, the file that will be used to secure the secure port of the API server via token authentication.")
	fss.FlagSet("authorization").StringSliceVar(&o.AuthorizationModes, "authorization-mode", o.AuthorizationModes, "Ordered list of plug-ins to do authorization on secure port. Elements of this list may be: "+strings.Join(authorizationModes, ", ")+". (svcplane's default is kubeadm's Node,RBAC; members of system:masters are always allowed.)")
	fss.FlagSet("generic").BoolVar(&o.EnableAggregatorRouting, "enable-aggregator-routing", o.EnableAggregatorRouting, "Turns on aggregator routing requests to endpoints IP rather than cluster IP. (svcplane: APIServices, admission and CRD conversion webhooks given by a service reference; up with --proxy-mode none turns it on.)")
	o.addAdmissionFlags(fss)
	o.addServiceAccountFlags(fss)
	o.addStorageSecurityFlags(fss)
	o.addKubeletFlags(fss.FlagSet("generic"))
	o.RequestHeader.AddFlags(fss.FlagSet("authentication"))
	fs = fss.FlagSet("authentication")
	fs.StringVar(&o.ProxyClientCertFile, "proxy-client-cert-file", o.ProxyClientCertFile, "Client certificate used to prove the identity of the aggregator or kube-apiserver when it must call out during a request. This includes proxying requests to a user api-server and calling out to webhook admission plugins. It is expected that this cert includes a signature from the CA in the --requestheader-client-ca-file flag. That CA is published in the 'extension-apiserver-authentication' configmap in the kube-system namespace. Components receiving calls from kube-aggregator should use that CA to perform their half of the mutual TLS verification. (svcplane: none of the proxy and requestheader flags makes kubeadm's front-proxy-client and front-proxy-ca in <data-dir>/pki.)")
	fs.StringVar(&o.ProxyClientKeyFile, "proxy-client-key-file", o.ProxyClientKeyFile, "Private key for the client certificate used to prove the identity of the aggregator or kube-apiserver when it must call out during a request. This includes proxying requests to a user api-server and calling out to webhook admission plugins.")
}

// addKubeletFlags registers kube-apiserver's kubelet client flags.
func (o *Options) addKubeletFlags(fs *pflag.FlagSet) {
	k := &o.Kubelet
	fs.StringSliceVar(&k.PreferredAddressTypes, "kubelet-preferred-address-types", k.PreferredAddressTypes, "List of the preferred NodeAddressTypes to use for kubelet connections. (svcplane's default is kubeadm's; a Node annotated "+kubeletclient.AddressAnnotation+" is dialled at that address.)")
	fs.DurationVar(&k.Timeout, "kubelet-timeout", k.Timeout, "Timeout for kubelet operations.")
	fs.StringVar(&k.CertFile, "kubelet-client-certificate", k.CertFile, "Path to a client cert file for TLS.")
	fs.StringVar(&k.KeyFile, "kubelet-client-key", k.KeyFile, "Path to a client key file for TLS.")
	fs.StringVar(&k.CAFile, "kubelet-certificate-authority", k.CAFile, "Path to a cert file for the certificate authority.")
}

// Validate checks the options and returns every problem at once.
func (o *Options) Validate() error {
	var errs []error
	if o.SecurePort < 0 || o.SecurePort > 65535 {
		errs = append(errs, fmt.Errorf("--secure-port %d must be between 0 and 65535, inclusive", o.SecurePort))
	}
	if net.ParseIP(o.BindAddress) == nil {
		errs = append(errs, fmt.Errorf("--bind-address %q is not a valid IP address", o.BindAddress))
	}
	if o.AdvertiseAddress != "" && net.ParseIP(o.AdvertiseAddress) == nil {
		errs = append(errs, fmt.Errorf("--advertise-address %q is not a valid IP address", o.AdvertiseAddress))
	}
	if _, err := ServiceCIDRs(o.ServiceClusterIPRange); err != nil {
		errs = append(errs, err)
	}
	if o.ServiceIPAllocator != AllocatorIPAddress && o.ServiceIPAllocator != AllocatorBitmap {
		errs = append(errs, fmt.Errorf("--service-ip-allocator %q: must be %q or %q", o.ServiceIPAllocator, AllocatorIPAddress, AllocatorBitmap))
	} else if err := o.validateRanges(); err != nil {
		errs = append(errs, err)
	}
	if _, err := portallocator.ParseRange(o.ServiceNodePortRange); err != nil {
		errs = append(errs, fmt.Errorf("--service-node-port-range: %w", err))
	}
	switch o.EndpointReconcilerType {
	case reconcilers.TypeLease, reconcilers.TypeMasterCount, reconcilers.TypeNone:
	default:
		errs = append(errs, fmt.Errorf("--endpoint-reconciler-type %q: must be one of lease, master-count, none", o.EndpointReconcilerType))
	}
	if o.APIServerCount < 1 {
		errs = append(errs, fmt.Errorf("--apiserver-count should be a positive number, but value '%d' provided", o.APIServerCount))
	}
	if p := o.KubernetesServiceNodePort; p != 0 {
		if r, err := portallocator.ParseRange(o.ServiceNodePortRange); err == nil && !r.Contains(p) {
			errs = append(errs, fmt.Errorf("--kubernetes-service-node-port %d must be within --service-node-port-range %s", p, r))
		}
	}
	if o.RepairInterval <= 0 {
		errs = append(errs, fmt.Errorf("--repair-interval must be positive"))
	}
	if o.EtcdCompactionInterval < 0 {
		errs = append(errs, fmt.Errorf("--etcd-compaction-interval %v must not be negative (0 disables compaction)", o.EtcdCompactionInterval))
	}
	if o.ShutdownWatchTerminationGracePeriod < 0 {
		errs = append(errs, fmt.Errorf("--shutdown-watch-termination-grace-period, if provided, can not be a negative value"))
	}
	if o.TokenAuthFile != "" {
		if _, err := os.Stat(o.TokenAuthFile); err != nil {
			errs = append(errs, fmt.Errorf("--token-auth-file: %w", err))
		}
	}
	if err := validateAuthorizationModes(o.AuthorizationModes); err != nil {
		errs = append(errs, err)
	}
	if o.DataDir == "" {
		errs = append(errs, fmt.Errorf("--data-dir must not be empty"))
	}
	if err := o.Kubelet.Validate(); err != nil {
		errs = append(errs, err)
	}
	errs = append(errs, o.validateServiceAccounts()...)
	errs = append(errs, o.validateStorageSecurity()...)
	errs = append(errs, o.validateAdmission()...)
	errs = append(errs, o.RequestHeader.Validate()...)
	if (o.ProxyClientCertFile == "") != (o.ProxyClientKeyFile == "") {
		errs = append(errs, fmt.Errorf("--proxy-client-cert-file and --proxy-client-key-file must be given together"))
	}
	if len(errs) == 0 {
		return nil
	}
	return errors.Join(errs...)
}

// ServiceCIDRs parses --service-cluster-ip-range: one CIDR, or two of
// different families.
func ServiceCIDRs(s string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, part := range splitComma(s) {
		p, err := netip.ParsePrefix(part)
		if err != nil {
			return nil, fmt.Errorf("--service-cluster-ip-range %q: %q is not a valid CIDR", s, part)
		}
		out = append(out, p.Masked())
	}
	switch {
	case len(out) == 0:
		return nil, fmt.Errorf("--service-cluster-ip-range must not be empty")
	case len(out) > 2:
		return nil, fmt.Errorf("--service-cluster-ip-range %q: at most two CIDRs (one per IP family)", s)
	case len(out) == 2 && out[0].Addr().Is4() == out[1].Addr().Is4():
		return nil, fmt.Errorf("--service-cluster-ip-range %q: a dual-stack range needs one IPv4 and one IPv6 CIDR", s)
	}
	return out, nil
}

// validateRanges checks the service CIDRs fit the allocator: IPv6 up to /64
// with IPAddress objects, IPv4 up to /12 and IPv6 up to /108 with a bitmap.
func (o *Options) validateRanges() error {
	cidrs, err := ServiceCIDRs(o.ServiceClusterIPRange)
	if err != nil {
		return nil // reported by the caller
	}
	for _, c := range cidrs {
		maxBits := 64
		if o.ServiceIPAllocator == AllocatorBitmap {
			maxBits = ipallocator.BitmapMaxHostBits
		}
		if _, err := ipallocator.NewRange(c, maxBits); err != nil {
			return fmt.Errorf("--service-cluster-ip-range: %w", err)
		}
	}
	return nil
}

// PKIDir is where certificates live.
func (o *Options) PKIDir() string { return filepath.Join(o.DataDir, "pki") }

// KubeconfigPath is where the admin kubeconfig is written.
func (o *Options) KubeconfigPath() string { return filepath.Join(o.DataDir, "kubeconfig") }
