package agent

import (
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/clock"

	"github.com/svcplane/svcplane/internal/node/kubelet"
	"github.com/svcplane/svcplane/internal/node/runtime/sim"
)

// ReadyAnnotation set to "false" on a pod keeps it unready.
const ReadyAnnotation = "svcplane.io/ready"

// TerminationDelayAnnotation (a Go duration, e.g. "5s") keeps a deleted
// pod running and serving that long, at most its grace period, to show
// terminating endpoints. Without it a pod ends at once on deletion, as a
// pause container does at SIGTERM.
const TerminationDelayAnnotation = "svcplane.io/termination-delay"

// Config is what an Agent runs.
type Config struct {
	// Client watches pods and nodes and writes pod status and deletions.
	Client kubernetes.Interface
	// HeartbeatClient renews Leases and writes node status; it should have
	// its own rate limiter. Nil uses Client.
	HeartbeatClient kubernetes.Interface
	// WatchClient lists and watches pods and nodes instead of Client; it
	// should have a connection of its own (see plane.NodeOptions). Nil
	// uses Client.
	WatchClient kubernetes.Interface

	// Names are the nodes this agent runs.
	Names []string
	// InternalIPs are the nodes' addresses, one per name (optional).
	InternalIPs []string
	// Zones are spread over the nodes round-robin as the
	// topology.kubernetes.io/zone label (none: no label).
	Zones []string
	// Labels are added to every node.
	Labels map[string]string

	CPU, Memory resource.Quantity
	MaxPods     int64

	// LeaseDuration is the Lease's leaseDurationSeconds; it is renewed
	// every quarter of it (kubelet: 40 s, renewed every 10 s).
	LeaseDuration time.Duration
	// NodeStatusReportFrequency is how often an unchanged node status is
	// posted anyway (kubelet: 5 m).
	NodeStatusReportFrequency time.Duration

	// Workers process pods; HeartbeatWorkers renew leases and node status.
	Workers, HeartbeatWorkers int

	// Runtime runs the pods (nil: a sim.Runtime on Clock).
	Runtime Runtime
	// RuntimeName is reported in the Node's nodeInfo (kernel, OS image,
	// container runtime): "sim" unless set.
	RuntimeName string
	// KubeletAPI, when set, serves the nodes' kubelet API (logs, exec,
	// port-forward for the API server) as configured; the agent fills in
	// the nodes and the pod lookup and reports each node's endpoint
	// (status.daemonEndpoints, the kubeletclient.AddressAnnotation).
	KubeletAPI *kubelet.Config
	Clock      clock.WithTicker
	// Version is reported as the kubelet version.
	Version string
}

// Defaults fills unset fields with the kubelet's values.
func (c *Config) Defaults() {
	if len(c.InternalIPs) == 0 {
		// 10.240.0.0/16: node i gets address i+1.
		for i := range c.Names {
			c.InternalIPs = append(c.InternalIPs, fmt.Sprintf("10.240.%d.%d", (i+1)/256, (i+1)%256))
		}
	}
	if c.WatchClient == nil {
		c.WatchClient = c.Client
	}
	if c.HeartbeatClient == nil {
		c.HeartbeatClient = c.Client
	}
	if c.CPU.IsZero() {
		c.CPU = resource.MustParse("4")
	}
	if c.Memory.IsZero() {
		c.Memory = resource.MustParse("16Gi")
	}
	if c.MaxPods == 0 {
		c.MaxPods = 110
	}
	if c.LeaseDuration == 0 {
		c.LeaseDuration = 40 * time.Second
	}
	if c.NodeStatusReportFrequency == 0 {
		c.NodeStatusReportFrequency = 5 * time.Minute
	}
	if c.Workers == 0 {
		c.Workers = 16
	}
	if c.HeartbeatWorkers == 0 {
		c.HeartbeatWorkers = 4
	}
	if c.Clock == nil {
		c.Clock = clock.RealClock{}
	}
	if c.Runtime == nil {
		c.Runtime = sim.New(c.Clock)
	}
	if c.RuntimeName == "" {
		c.RuntimeName = "sim"
	}
	if c.Version == "" {
		c.Version = "v0.0.0-svcplane"
	}
}

// RenewInterval is how often leases are renewed and node status checked.
func (c *Config) RenewInterval() time.Duration { return c.LeaseDuration / 4 }

func (c *Config) validate() error {
	if c.Client == nil {
		return fmt.Errorf("no client")
	}
	if len(c.Names) == 0 {
		return fmt.Errorf("no node names")
	}
	if len(c.InternalIPs) > 0 && len(c.InternalIPs) != len(c.Names) {
		return fmt.Errorf("%d internal IPs for %d nodes", len(c.InternalIPs), len(c.Names))
	}
	seen := map[string]bool{}
	for _, n := range c.Names {
		if seen[n] {
			return fmt.Errorf("node %q named twice", n)
		}
		seen[n] = true
	}
	if c.LeaseDuration < 4*time.Second/4 {
		return fmt.Errorf("lease duration %s too short", c.LeaseDuration)
	}
	return nil
}
