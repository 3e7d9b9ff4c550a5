package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/pprof"
	"net/netip"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/api/resource"
	genericapiserver "k8s.io/apiserver/pkg/server"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/klog/v2"

	"github.com/svcplane/svcplane/internal/apiserver"
	"github.com/svcplane/svcplane/internal/node/agent"
	"github.com/svcplane/svcplane/internal/version"
)

// nodeOptions are the node agent's settings, shared by `svcplane node`
// and the local nodes of `svcplane up`.
type nodeOptions struct {
	runtime     string
	nodes       int
	namePrefix  string
	nodeName    string
	zones       []string
	nodeIPs     string
	cpu, memory string
	maxPods     int64
	leaseSecs   int
	report      time.Duration
	workers     int
	qps         float32
	burst       int
	pprofAddr   string
}

func newNodeOptions() *nodeOptions {
	return &nodeOptions{runtime: "sim", nodes: 1, zones: []string{"zone-a", "zone-b", "zone-c"},
		nodeIPs: "10.240.0.0/16", cpu: "4", memory: "16Gi", maxPods: 110, leaseSecs: 40, report: 5 * time.Minute,
		workers: 128, qps: 1000, burst: 2000}
}

// addFlags registers the agent flags; up registers them without --nodes
// and --node-name, which it has itself.
func (o *nodeOptions) addFlags(fs *pflag.FlagSet, withNames bool) {
	if withNames {
		fs.IntVar(&o.nodes, "nodes", o.nodes, "Number of simulated nodes this process runs.")
		fs.StringVar(&o.nodeName, "node-name", "", "Name of the node when --nodes is 1 and no --name-prefix is given (default: the hostname).")
	}
	fs.StringVar(&o.runtime, "runtime", o.runtime, "Container runtime; 'sim' simulates pods (IPs from the node's pod CIDRs, no processes).")
	fs.StringVar(&o.namePrefix, "name-prefix", o.namePrefix, "Nodes are named <prefix><i>, i = 0…N-1.")
	fs.StringSliceVar(&o.zones, "zones", o.zones, "Zones spread round-robin over the nodes as topology.kubernetes.io/zone.")
	fs.StringVar(&o.nodeIPs, "node-ips", o.nodeIPs, "CIDR from which node i gets address i+1 as its InternalIP.")
	fs.StringVar(&o.cpu, "cpu", o.cpu, "Capacity and allocatable cpu of each node.")
	fs.StringVar(&o.memory, "memory", o.memory, "Capacity and allocatable memory of each node.")
	fs.Int64Var(&o.maxPods, "max-pods", o.maxPods, "Capacity and allocatable pods of each node.")
	fs.IntVar(&o.leaseSecs, "node-lease-duration-seconds", o.leaseSecs, "Duration of the node Leases; they are renewed every quarter of it.")
	fs.DurationVar(&o.report, "node-status-report-frequency", o.report, "How often an unchanged node status is posted anyway.")
	fs.IntVar(&o.workers, "workers", o.workers, "Pod workers shared by all nodes.")
	fs.Float32Var(&o.qps, "kube-api-qps", o.qps, "QPS of the pod client (heartbeats have their own).")
	fs.IntVar(&o.burst, "kube-api-burst", o.burst, "Burst of the pod client.")
	fs.StringVar(&o.pprofAddr, "profiling-address", "", "Serve net/http/pprof on this address (e.g. 127.0.0.1:6060); empty: off.")
}

// checkNodeCount refuses a --nodes below least.
func checkNodeCount(n, least int) error {
	if n < least {
		return fmt.Errorf("--nodes %d: want %d or more", n, least)
	}
	return nil
}

// names returns the node names: <prefix><i>, or the single node's name.
func (o *nodeOptions) names(defaultName string) []string {
	if o.nodes == 1 && o.namePrefix == "" {
		if o.nodeName != "" {
			return []string{o.nodeName}
		}
		return []string{defaultName}
	}
	prefix := o.namePrefix
	if prefix == "" {
		prefix = defaultName + "-"
	}
	out := make([]string, o.nodes)
	for i := range out {
		out[i] = fmt.Sprintf("%s%d", prefix, i)
	}
	return out
}

// agentConfig builds the agent's configuration from a client config (the
// node credentials).
func (o *nodeOptions) agentConfig(cfg *rest.Config, names []string) (agent.Config, error) {
	if o.runtime != "sim" {
		return agent.Config{}, fmt.Errorf("--runtime %q: only \"sim\" is implemented", o.runtime)
	}
	cpu, err := resource.ParseQuantity(o.cpu)
	if err != nil {
		return agent.Config{}, fmt.Errorf("--cpu: %w", err)
	}
	mem, err := resource.ParseQuantity(o.memory)
	if err != nil {
		return agent.Config{}, fmt.Errorf("--memory: %w", err)
	}
	ips, err := nodeAddresses(o.nodeIPs, len(names))
	if err != nil {
		return agent.Config{}, err
	}
	pods := rest.CopyConfig(cfg)
	pods.ContentType = "application/vnd.kubernetes.protobuf"
	pods.AcceptContentTypes = "application/vnd.kubernetes.protobuf,application/json"
	pods.QPS, pods.Burst = o.qps, o.burst
	pods.UserAgent = "svcplane-node-agent"
	hb := rest.CopyConfig(pods)
	hb.QPS, hb.Burst = float32(max(50, len(names)/2)), max(100, len(names))
	podClient, err := kubernetes.NewForConfig(pods)
	if err != nil {
		return agent.Config{}, err
	}
	hbClient, err := kubernetes.NewForConfig(hb)
	if err != nil {
		return agent.Config{}, err
	}
	return agent.Config{Client: podClient, HeartbeatClient: hbClient, Names: names, InternalIPs: ips,
		Zones: o.zones, CPU: cpu, Memory: mem, MaxPods: o.maxPods,
		LeaseDuration: time.Duration(o.leaseSecs) * time.Second, NodeStatusReportFrequency: o.report,
		Workers: o.workers, HeartbeatWorkers: max(4, min(32, len(names)/50)), Version: version.Get().GitVersion}, nil
}

// nodeAddresses gives node i address i+1 of cidr.
func nodeAddresses(cidr string, n int) ([]string, error) {
	p, err := netip.ParsePrefix(cidr)
	if err != nil {
		return nil, fmt.Errorf("--node-ips: %w", err)
	}
	if bits := p.Addr().BitLen() - p.Bits(); bits < 63 && uint64(n) >= 1<<bits-1 {
		return nil, fmt.Errorf("--node-ips %s is too small for %d nodes", p, n)
	}
	out := make([]string, n)
	a := p.Masked().Addr()
	for i := range out {
		a = a.Next()
		out[i] = a.String()
	}
	return out, nil
}

// runNodes runs the agent until ctx ends.
func runNodes(ctx context.Context, o *nodeOptions, cfg *rest.Config, names []string) error {
	ac, err := o.agentConfig(cfg, names)
	if err != nil {
		return err
	}
	a, err := agent.New(ac)
	if err != nil {
		return err
	}
	return a.Run(ctx)
}

func newNodeCommand() *cobra.Command {
	o := newNodeOptions()
	var kubeconfig string
	cmd := &cobra.Command{
		Use:   "node",
		Short: "Run N simulated nodes (kubelet heartbeats, pods on a simulated runtime) in one process",
		Long: `Run the node agent for --nodes simulated nodes against an API server. It
registers each Node, renews its Lease in kube-node-lease, and runs the pods
bound to it on the simulated runtime (IPs from the node's pod CIDRs,
readiness after the readinessProbe's initialDelaySeconds). Use the node
credentials the server writes: --kubeconfig <data-dir>/node-kubeconfig.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkNodeCount(o.nodes, 1); err != nil {
				return err
			}
			cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
			if err != nil {
				return err
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			if o.pprofAddr != "" {
				go servePprof(o.pprofAddr)
			}
			names := o.names(apiserver.DefaultNodeName())
			fmt.Fprintf(cmd.OutOrStdout(), "svcplane node: %d node(s) %s…, runtime %s\n", len(names), names[0], o.runtime)
			return runNodes(ctx, o, cfg, names)
		},
	}
	cmd.Flags().StringVar(&kubeconfig, "kubeconfig", "svcplane-data/node-kubeconfig", "Kubeconfig with the node credentials.")
	o.addFlags(cmd.Flags(), true)
	return cmd
}

func servePprof(addr string) {
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	l, err := net.Listen("tcp", addr)
	if err != nil {
		klog.ErrorS(err, "pprof not served")
		return
	}
	_ = http.Serve(l, mux)
}

// addLocalNodes makes `up` run n local nodes (the first --node-name, the
// host's address as its InternalIP) with the node credentials once the
// server serves.
func addLocalNodes(s *apiserver.Server, n int) error {
	if n <= 0 {
		return nil
	}
	o := newNodeOptions()
	o.nodes, o.nodeName = n, s.Options.NodeName
	if n > 1 {
		o.namePrefix = s.Options.NodeName + "-"
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", s.Options.NodeKubeconfigPath())
	if err != nil {
		return err
	}
	names := o.names(s.Options.NodeName)
	ac, err := o.agentConfig(cfg, names)
	if err != nil {
		return err
	}
	if n == 1 {
		ac.InternalIPs = []string{s.AdvertiseAddress.String()}
	}
	a, err := agent.New(ac)
	if err != nil {
		return err
	}
	return s.AddPostStartHook("start-node-agent", func(hc genericapiserver.PostStartHookContext) error {
		go func() {
			if err := a.Run(hc); err != nil {
				klog.ErrorS(err, "Node agent stopped")
			}
		}()
		return nil
	})
}
