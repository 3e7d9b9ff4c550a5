package plane

import (
	"context"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"net"
	"net/netip"
	"os"
	"strings"
	"time"

	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/svcplane/svcplane/internal/auth/node"
	"github.com/svcplane/svcplane/internal/kubeletclient"
	"github.com/svcplane/svcplane/internal/node/agent"
	"github.com/svcplane/svcplane/internal/node/kubelet"
	"github.com/svcplane/svcplane/internal/node/runtime/netns"
	"github.com/svcplane/svcplane/internal/version"
)

// NodeOptions are the node agent's settings: the flags of `svcplane node`;
// up's local nodes use the defaults.
type NodeOptions struct {
	Runtime     string
	Nodes       int
	NamePrefix  string
	NodeName    string
	Zones       []string
	NodeIPs     string
	CPU, Memory string
	MaxPods     int64
	LeaseSecs   int
	Report      time.Duration
	Workers     int
	QPS         float32
	Burst       int
	PprofAddr   string

	// KubeletAPI serves each node's kubelet API (logs, exec,
	// port-forward, nodes/proxy) on KubeletAddress (a free port per
	// node), advertised to the API server as KubeletAdvertiseAddress;
	// ClientCAFile is the kubelet's --client-ca-file.
	KubeletAPI                              bool
	KubeletAddress, KubeletAdvertiseAddress string
	ClientCAFile                            string

	// Netns configures --runtime netns.
	Netns NetnsOptions
}

// NewNodeOptions returns the agent's defaults.
func NewNodeOptions() *NodeOptions {
	return &NodeOptions{Runtime: "sim", Nodes: 1, Zones: []string{"zone-a", "zone-b", "zone-c"},
		NodeIPs: "10.240.0.0/16", CPU: "4", Memory: "16Gi", MaxPods: 110, LeaseSecs: 40, Report: 5 * time.Minute,
		Workers: 128, QPS: 1000, Burst: 2000, KubeletAPI: true, KubeletAddress: "127.0.0.1", Netns: newNetnsOptions()}
}

// AddFlags registers the agent flags of `svcplane node`.
func (o *NodeOptions) AddFlags(fs *pflag.FlagSet) {
	fs.IntVar(&o.Nodes, "nodes", o.Nodes, "Number of simulated nodes this process runs.")
	fs.StringVar(&o.NodeName, "node-name", "", "Name of the node when --nodes is 1 and no --name-prefix is given (default: the hostname).")
	fs.StringVar(&o.Runtime, "runtime", o.Runtime, "Container runtime; 'sim' simulates pods (IPs from the node's pod CIDRs, no processes); 'netns' (root) makes each node a network namespace on a host bridge and each pod one with a veth into its node, and runs their containers.")
	fs.StringVar(&o.NamePrefix, "name-prefix", o.NamePrefix, "Nodes are named <prefix><i>, i = 0…N-1.")
	fs.StringSliceVar(&o.Zones, "zones", o.Zones, "Zones spread round-robin over the nodes as topology.kubernetes.io/zone.")
	fs.StringVar(&o.NodeIPs, "node-ips", o.NodeIPs, "CIDR from which node i gets address i+1 as its InternalIP.")
	fs.StringVar(&o.CPU, "cpu", o.CPU, "Capacity and allocatable cpu of each node.")
	fs.StringVar(&o.Memory, "memory", o.Memory, "Capacity and allocatable memory of each node.")
	fs.Int64Var(&o.MaxPods, "max-pods", o.MaxPods, "Capacity and allocatable pods of each node.")
	fs.IntVar(&o.LeaseSecs, "node-lease-duration-seconds", o.LeaseSecs, "Duration of the node Leases; they are renewed every quarter of it.")
	fs.DurationVar(&o.Report, "node-status-report-frequency", o.Report, "How often an unchanged node status is posted anyway.")
	fs.IntVar(&o.Workers, "workers", o.Workers, "Pod workers shared by all nodes.")
	fs.Float32Var(&o.QPS, "kube-api-qps", o.QPS, "QPS of the pod client (heartbeats have their own).")
	fs.IntVar(&o.Burst, "kube-api-burst", o.Burst, "Burst of the pod client.")
	fs.StringVar(&o.PprofAddr, "profiling-address", "", "Serve net/http/pprof on this address (e.g. 127.0.0.1:6060); empty: off.")
	fs.BoolVar(&o.KubeletAPI, "kubelet-api", o.KubeletAPI, "Serve each node's kubelet API (HTTPS, client certificates of --client-ca-file, SubjectAccessReview authorization), which the API server proxies pods/log, pods/exec, pods/portforward and nodes/proxy to.")
	fs.StringVar(&o.KubeletAddress, "kubelet-address", o.KubeletAddress, "IP address the simulated nodes' kubelet APIs listen on, each on a free port (Node.status.daemonEndpoints.kubeletEndpoint.Port).")
	fs.StringVar(&o.KubeletAdvertiseAddress, "kubelet-advertise-address", o.KubeletAdvertiseAddress, "Address the API server dials for the nodes' kubelet APIs (the Node annotation "+kubeletclient.AddressAnnotation+"); default --kubelet-address (127.0.0.1 when that is unspecified). Simulated nodes' own addresses route nowhere.")
	fs.StringVar(&o.ClientCAFile, "client-ca-file", o.ClientCAFile, "The kubelet's --client-ca-file: clients of the kubelet API presenting a certificate signed by one of its CAs are authenticated as its CommonName (default: the CA of --kubeconfig).")
	o.Netns.addFlags(fs)
}

// Names returns the node names: <prefix><i>, or the single node's name
// (--node-name, else defaultName).
func (o *NodeOptions) Names(defaultName string) []string {
	if o.Nodes == 1 && o.NamePrefix == "" {
		if o.NodeName != "" {
			return []string{o.NodeName}
		}
		return []string{defaultName}
	}
	prefix := o.NamePrefix
	if prefix == "" {
		prefix = defaultName + "-"
	}
	out := make([]string, o.Nodes)
	for i := range out {
		out[i] = fmt.Sprintf("%s%d", prefix, i)
	}
	return out
}

// AgentConfig builds the agent's configuration for the named nodes from a
// client config (the node credentials). With --runtime netns it makes the
// runtime (the host bridge at once); the agent closes it when it stops.
func (o *NodeOptions) AgentConfig(cfg *rest.Config, names []string) (agent.Config, error) {
	if o.Runtime != "sim" && o.Runtime != "netns" {
		return agent.Config{}, fmt.Errorf("--runtime %q: want sim or netns", o.Runtime)
	}
	cpu, err := resource.ParseQuantity(o.CPU)
	if err != nil {
		return agent.Config{}, fmt.Errorf("--cpu: %w", err)
	}
	mem, err := resource.ParseQuantity(o.Memory)
	if err != nil {
		return agent.Config{}, fmt.Errorf("--memory: %w", err)
	}
	ips, err := nodeAddresses(o.NodeIPs, len(names))
	if err != nil {
		return agent.Config{}, err
	}
	podClient, hbClient, watchClient, err := o.clients(cfg, len(names))
	if err != nil {
		return agent.Config{}, err
	}
	ac := agent.Config{Client: podClient, HeartbeatClient: hbClient, WatchClient: watchClient, Names: names, InternalIPs: ips,
		Zones: o.Zones, CPU: cpu, Memory: mem, MaxPods: o.MaxPods,
		LeaseDuration: time.Duration(o.LeaseSecs) * time.Second, NodeStatusReportFrequency: o.Report,
		Workers: o.Workers, HeartbeatWorkers: heartbeatWorkers(len(names)), Version: version.Get().GitVersion}
	var rt *netns.Runtime
	if o.Runtime == "netns" {
		if rt, err = o.netnsAgentConfig(&ac, names); err != nil {
			return agent.Config{}, err
		}
	}
	if o.KubeletAPI {
		ca, err := clientCABundle(o.ClientCAFile, cfg)
		if err != nil {
			closeRuntime(ac)
			return agent.Config{}, err
		}
		if ac.KubeletAPI, err = kubeletAPIConfig(cfg, ca, nil, o.KubeletAddress, o.KubeletAdvertiseAddress); err != nil {
			closeRuntime(ac)
			return agent.Config{}, err
		}
		if rt != nil {
			// Each node's kubelet API listens in its namespace on the
			// kubelet's port; the API server dials the node's address.
			ac.KubeletAPI.Listen, ac.KubeletAPI.Port = rt.ListenInNode, kubelet.DefaultPort
		}
	}
	return ac, nil
}

// heartbeatWorkers is how many heartbeats of n nodes the agent sends at
// once: n/50, 4…100. Each kubelet renews its own Lease every 10 s; here a
// worker renews one after another, so at 5,000 nodes the 32 workers
// this was capped at before renewed too few Leases once requests took
// hundreds of milliseconds, and nodes went NotReady. More is not better:
// when the server's in-flight limit (200 mutating) was shared, 500
// workers took it over with Leases (33,642 429s in 6 min) and left the
// pods' status writes behind; the server now gives node heartbeats 98
// seats of their own (internal/apiserver/inflight), so workers beyond
// those only wait in it. 100 keep a renewal within the 50 s grace period
// up to 2.5 s a request.
func heartbeatWorkers(n int) int {
	return max(4, min(100, n/50))
}

// clients returns the pod client (protobuf, --kube-api-qps/burst), the
// heartbeat client (its own limiter, scaled to n nodes) and the watch
// client.
//
// The watch client has a connection of its own. On a shared HTTP/2
// connection the watch's events queue behind the frames of up to
// --workers status writes in the connection's one writer on the server;
// under load the watch then falls behind, and the API server's watch
// cache closes it as unresponsive (apiserver_terminated_watchers_total)
// and replays the missed events when it comes back: at 1,000 nodes and
// ~360 pod creates a second, the agent's watch was closed every 2 s.
// A kubelet watches its pods on its own connection too.
func (o *NodeOptions) clients(cfg *rest.Config, n int) (pods, heartbeats, watches kubernetes.Interface, err error) {
	pc := rest.CopyConfig(cfg)
	pc.ContentType = "application/vnd.kubernetes.protobuf"
	pc.AcceptContentTypes = "application/vnd.kubernetes.protobuf,application/json"
	pc.QPS, pc.Burst = o.QPS, o.Burst
	pc.UserAgent = "svcplane-node-agent"
	hb := rest.CopyConfig(pc)
	hb.QPS, hb.Burst = float32(max(50, n/2)), max(100, n)
	wc := rest.CopyConfig(pc)
	// client-go shares one transport (and connection) among configs of
	// the same TLS settings unless they dial on their own (a config with
	// a dialer of its own gets a transport of its own).
	if wc.Dial == nil {
		wc.Dial = (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext
	}
	if pods, err = kubernetes.NewForConfig(pc); err != nil {
		return nil, nil, nil, err
	}
	if heartbeats, err = kubernetes.NewForConfig(hb); err != nil {
		return nil, nil, nil, err
	}
	watches, err = kubernetes.NewForConfig(wc)
	return pods, heartbeats, watches, err
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

// Validate checks the options of `svcplane node`.
func (o *NodeOptions) Validate() error {
	if o.Nodes < 1 {
		return fmt.Errorf("--nodes %d: want 1 or more", o.Nodes)
	}
	return nil
}

// RunNodes runs the agent for the nodes o names (defaultName: see Names)
// with cfg's credentials until ctx ends: the `svcplane node` process.
func RunNodes(ctx context.Context, o *NodeOptions, cfg *rest.Config, defaultName string) error {
	if err := o.Validate(); err != nil {
		return err
	}
	names := o.Names(defaultName)
	if err := checkNodeCredentials(cfg, names); err != nil {
		return err
	}
	ac, err := o.AgentConfig(cfg, names)
	if err != nil {
		return err
	}
	a, err := agent.New(ac)
	if err != nil {
		closeRuntime(ac)
		return err
	}
	return a.Run(ctx)
}

// checkNodeCredentials refuses a node identity's client certificate
// (CN system:node:<name>) for nodes other than that one node: the Node
// authorizer and NodeRestriction would refuse most of their requests.
func checkNodeCredentials(cfg *rest.Config, names []string) error {
	certPEM := cfg.CertData
	if len(certPEM) == 0 && cfg.CertFile != "" {
		var err error
		if certPEM, err = os.ReadFile(cfg.CertFile); err != nil {
			return err
		}
	}
	block, _ := pem.Decode(certPEM)
	if block == nil {
		return nil
	}
	cert, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		return nil
	}
	own, isNode := strings.CutPrefix(cert.Subject.CommonName, node.UserPrefix)
	if !isNode || len(names) == 1 && names[0] == own {
		return nil
	}
	return fmt.Errorf("the credentials of node %q cannot run nodes %s…: a node may act only as itself; use %s (the node simulator's) for other or several nodes",
		own, names[0], NodeSimulatorKubeconfig)
}
