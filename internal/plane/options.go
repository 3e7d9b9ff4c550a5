package plane

import (
	"errors"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/util/validation"
	cliflag "k8s.io/component-base/cli/flag"

	"github.com/svcplane/svcplane/internal/apiserver"
	"github.com/svcplane/svcplane/internal/controller/manager"
	"github.com/svcplane/svcplane/internal/controller/nodelifecycle"
	"github.com/svcplane/svcplane/internal/dns"
)

// Options say what runs in a `svcplane server` or `svcplane up` process
// and how: the API server's settings, the controller manager's, the node
// credentials and (up) the local nodes and proxy.
type Options struct {
	*apiserver.Options
	ControllerOptions

	// NodeName is the node whose credentials (user system:node:<name>,
	// group system:nodes) are minted into <data-dir>/node-kubeconfig; up
	// runs its local node under that name.
	NodeName string
	// Nodes is the number of local simulated nodes run in this process
	// (up --nodes; 0: none).
	Nodes int
	// ProxyMode is the service proxy of the single local node run in this
	// process (up --proxy-mode): nftables, iptables, ipvs, userspace, or
	// none.
	ProxyMode string
	// DNS is the cluster DNS run in this process (up, unless --dns=false):
	// by default on <advertise-address>:53 with metrics on :9153, with
	// kube-system/kube-dns at the tenth address of the service range
	// pointing at it.
	DNS        dns.Config
	DNSEnabled bool
	// Runtime is the local nodes' runtime (up --runtime): sim, or netns
	// (root: a network namespace per node and pod, a proxy per node).
	Runtime string
	// Netns are the netns runtime's host bridge settings (up).
	Netns NetnsOptions

	// GCPercent is the Go collector's target of this process
	// (ApplyGCPercent) unless GOGC is set.
	GCPercent int

	// up: the process always embeds etcd.
	up bool
}

// ControllerOptions are the controller manager's settings
// (kube-controller-manager's flag names and, where they exist, defaults).
type ControllerOptions struct {
	Controllers            []string
	ClusterCIDR            string
	NodeCIDRMaskSizeIPv4   int
	NodeCIDRMaskSizeIPv6   int
	NodeMonitorPeriod      time.Duration
	NodeMonitorGracePeriod time.Duration
	NodeStartupGracePeriod time.Duration
}

// NewServerOptions are the defaults of `svcplane server`: API server and
// controller manager, no local nodes, no proxy.
func NewServerOptions() *Options {
	return &Options{Options: apiserver.NewOptions(), ControllerOptions: newControllerOptions(),
		NodeName: DefaultNodeName(), ProxyMode: ProxyNone, Runtime: "sim", Netns: newNetnsOptions(),
		GCPercent: DefaultGCPercent}
}

// NewUpOptions are the defaults of `svcplane up`: the server's plus one
// local node with the nftables proxy, always on an embedded etcd.
func NewUpOptions() *Options {
	o := NewServerOptions()
	o.Nodes, o.ProxyMode, o.up = 1, "nftables", true
	o.DNSEnabled, o.DNS = true, dns.Defaults()
	// Up binds them on the advertise address unless told otherwise.
	o.DNS.BindAddress, o.DNS.HealthAddress, o.DNS.ReadyAddress, o.DNS.MetricsAddress = "", "", "", ""
	return o
}

func newControllerOptions() ControllerOptions {
	return ControllerOptions{
		Controllers:            []string{"*"},
		ClusterCIDR:            "10.244.0.0/16",
		NodeCIDRMaskSizeIPv4:   24,
		NodeCIDRMaskSizeIPv6:   64,
		NodeMonitorPeriod:      5 * time.Second,
		NodeMonitorGracePeriod: 50 * time.Second, // kube-controller-manager 1.36's default (40 s before 1.32)
		NodeStartupGracePeriod: time.Minute,
	}
}

// ProxyNone runs no local proxy.
const ProxyNone = "none"

// AddFlags registers the options as command-line flags: the server's and
// the controllers' flags, and for up --nodes and --proxy-mode (and
// --etcd-servers hidden).
func (o *Options) AddFlags(fss *cliflag.NamedFlagSets) {
	o.Options.AddFlags(fss)
	o.ControllerOptions.AddFlags(fss.FlagSet("controllers"))
	fs := fss.FlagSet("nodes")
	fs.StringVar(&o.NodeName, "node-name", o.NodeName, "Node name whose credentials (user system:node:<name> in group system:nodes) are written to <data-dir>/node-kubeconfig; up runs its local node under that name.")
	fss.FlagSet("memory").IntVar(&o.GCPercent, "gc-percent", o.GCPercent, "Go garbage collector target of this process when the GOGC environment variable is unset (GOGC wins): the heap grows to live × (1 + N/100) before a collection. Lower: less memory, more CPU in the collector. The Go runtime's own default is 100.")
	if !o.up {
		return
	}
	fss.FlagSet("etcd").Lookup("etcd-servers").Hidden = true
	fs.IntVar(&o.Nodes, "nodes", o.Nodes, "Local simulated nodes (0: none): --node-name on its node credentials, or <node-name>-<i> for several on the node simulator's (<data-dir>/node-simulator-kubeconfig).")
	fs.StringVar(&o.ProxyMode, "proxy-mode", o.ProxyMode, "Service proxy of the local node run in this process: nftables, iptables, ipvs, userspace, or none. It needs root; without it up runs on and says why. With --runtime netns every node runs one in its namespace.")
	fs.StringVar(&o.Runtime, "runtime", o.Runtime, "Local nodes' runtime: 'sim' simulates pods; 'netns' (root) makes each node a network namespace on a host bridge and each pod one with a veth into its node, runs containers for real and a service proxy per node.")
	fs.StringVar(&o.Netns.HostAddress, "netns-host-address", o.Netns.HostAddress, "--runtime netns: the host bridge's address/prefix; node i gets address i+2 of the prefix as its InternalIP.")
	fs.StringVar(&o.Netns.Bridge, "netns-bridge", o.Netns.Bridge, "--runtime netns: the host bridge's name.")
	o.Netns.addImageFlags(fs)
	fs = fss.FlagSet("dns")
	fs.BoolVar(&o.DNSEnabled, "dns", o.DNSEnabled, "Run the cluster DNS in this process, behind kube-system/kube-dns (the tenth address of the service range).")
	o.DNS.AddFlags(fs)
	fs.Lookup("dns-bind-address").Usage = "The UDP and TCP address:port the cluster DNS listens on; empty: <advertise-address>:53 (as root; else port 1053)."
	fs.Lookup("dns-metrics-address").Usage = "Address of the DNS's /metrics, /health and /ready (CoreDNS's series); empty: <advertise-address>:9153."
}

// AddFlags registers the controller manager's flags.
func (o *ControllerOptions) AddFlags(fs *pflag.FlagSet) {
	fs.StringSliceVar(&o.Controllers, "controllers", o.Controllers, "A list of controllers to enable. '*' enables all on-by-default controllers, 'foo' enables the controller named 'foo', '-foo' disables the controller named 'foo'. Controllers (kube-controller-manager's names; its aliases such as 'replicaset' are accepted too): namespace-controller, serviceaccount-controller, serviceaccount-token-controller, root-ca-certificate-publisher-controller, clusterrole-aggregation-controller, validatingadmissionpolicy-status-controller, service-cidr-controller, node-ipam-controller, node-lifecycle-controller, scheduler, replicaset-controller, replicationcontroller-controller, deployment-controller, garbage-collector-controller, endpoints-controller, endpointslice-mirroring-controller, endpointslice-controller.")
	fs.StringVar(&o.ClusterCIDR, "cluster-cidr", o.ClusterCIDR, "CIDR range (or two, comma separated, for dual-stack) for pods; Nodes get their pod CIDRs from it. Empty disables node IPAM.")
	fs.IntVar(&o.NodeCIDRMaskSizeIPv4, "node-cidr-mask-size-ipv4", o.NodeCIDRMaskSizeIPv4, "Mask size for IPv4 node CIDRs in a cluster.")
	fs.IntVar(&o.NodeCIDRMaskSizeIPv6, "node-cidr-mask-size-ipv6", o.NodeCIDRMaskSizeIPv6, "Mask size for IPv6 node CIDRs in a cluster.")
	fs.DurationVar(&o.NodeMonitorPeriod, "node-monitor-period", o.NodeMonitorPeriod, "The period for syncing NodeStatus in the node lifecycle controller.")
	fs.DurationVar(&o.NodeMonitorGracePeriod, "node-monitor-grace-period", o.NodeMonitorGracePeriod, "Amount of time which we allow running Node to be unresponsive before marking it unhealthy (no Lease renewal or status heartbeat).")
	fs.DurationVar(&o.NodeStartupGracePeriod, "node-startup-grace-period", o.NodeStartupGracePeriod, "Amount of time which we allow starting Node to be unresponsive before marking it unhealthy.")
}

// completeWebhookRouting: up without a proxy sends APIServices and
// webhooks given by a Service to its endpoints
// (--enable-aggregator-routing), as
// nothing programs this host to route the Service's ClusterIP.
func (o *Options) completeWebhookRouting() {
	if o.up && o.ProxyMode == ProxyNone {
		o.EnableAggregatorRouting = true
	}
}

// Validate checks the options and returns every problem at once.
func (o *Options) Validate() error {
	errs := []error{o.Options.Validate(), o.ControllerOptions.Validate()}
	if msgs := validation.IsDNS1123Subdomain(o.NodeName); len(msgs) > 0 {
		errs = append(errs, fmt.Errorf("--node-name %q: %s", o.NodeName, strings.Join(msgs, "; ")))
	}
	if o.up && len(o.EtcdServers) > 0 {
		errs = append(errs, fmt.Errorf("svcplane up always runs the embedded etcd; use `svcplane server --etcd-servers` for an external cluster"))
	}
	if o.Nodes < 0 {
		errs = append(errs, fmt.Errorf("--nodes %d: want 0 or more", o.Nodes))
	}
	errs = append(errs, ValidGCPercent(o.GCPercent))
	if o.DNSEnabled {
		c := o.DNS
		if c.BindAddress == "" {
			c.BindAddress = ":53" // filled from the advertise address at start
		}
		errs = append(errs, c.Validate())
	}
	switch o.Runtime {
	case "sim", "netns":
	default:
		errs = append(errs, fmt.Errorf("--runtime %q: want sim or netns", o.Runtime))
	}
	switch o.ProxyMode {
	case ProxyNone, "nftables", "iptables", "ipvs", "userspace":
	default:
		errs = append(errs, fmt.Errorf("--proxy-mode %q: want nftables, iptables, ipvs, userspace or none", o.ProxyMode))
	}
	return errors.Join(errs...)
}

// Validate checks the controller manager's options.
func (o *ControllerOptions) Validate() error {
	var errs []error
	if _, err := o.Config(); err != nil {
		errs = append(errs, err)
	}
	if _, err := manager.Select(o.Controllers); err != nil {
		errs = append(errs, fmt.Errorf("--controllers: %w", err))
	}
	if o.NodeMonitorPeriod <= 0 || o.NodeMonitorGracePeriod <= 0 || o.NodeStartupGracePeriod <= 0 {
		errs = append(errs, fmt.Errorf("--node-monitor-period, --node-monitor-grace-period and --node-startup-grace-period must be positive"))
	}
	return errors.Join(errs...)
}

// Config returns the controllers' settings from the options.
func (o *ControllerOptions) Config() (manager.Config, error) {
	c := manager.Config{NodeCIDRMaskV4: o.NodeCIDRMaskSizeIPv4, NodeCIDRMaskV6: o.NodeCIDRMaskSizeIPv6,
		NodeLifecycle: nodelifecycle.Config{MonitorPeriod: o.NodeMonitorPeriod,
			GracePeriod: o.NodeMonitorGracePeriod, StartupGracePeriod: o.NodeStartupGracePeriod}}
	for _, part := range strings.Split(o.ClusterCIDR, ",") {
		if part = strings.TrimSpace(part); part == "" {
			continue
		}
		p, err := netip.ParsePrefix(part)
		if err != nil {
			return c, fmt.Errorf("--cluster-cidr %q: %q is not a valid CIDR", o.ClusterCIDR, part)
		}
		mask := c.NodeCIDRMaskV4
		if p.Addr().Is6() {
			mask = c.NodeCIDRMaskV6
		}
		if mask < p.Bits() || mask-p.Bits() > 20 || mask > p.Addr().BitLen() {
			return c, fmt.Errorf("--cluster-cidr %s cannot be split into /%d node CIDRs (mask at least /%d, at most 2^20 subnets)", p, mask, p.Bits())
		}
		c.ClusterCIDRs = append(c.ClusterCIDRs, p.Masked())
	}
	return c, nil
}

// NodeKubeconfigPath is where the node credentials are written.
func (o *Options) NodeKubeconfigPath() string { return filepath.Join(o.DataDir, "node-kubeconfig") }

// NodeSimulatorKubeconfigPath is where the node simulator's credentials
// (several nodes on one credential) are written.
func (o *Options) NodeSimulatorKubeconfigPath() string {
	return filepath.Join(o.DataDir, NodeSimulatorKubeconfig)
}

// NodeSimulatorKubeconfig is the node simulator's kubeconfig file in the
// data dir.
const NodeSimulatorKubeconfig = "node-simulator-kubeconfig"

// DefaultNodeName is the host's name, lower-cased, as the kubelet's
// default node name.
func DefaultNodeName() string {
	h, err := os.Hostname()
	if err != nil || h == "" {
		return "localhost"
	}
	return strings.ToLower(h)
}
