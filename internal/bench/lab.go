package bench

import (
	"fmt"
	"io"
	"os/exec"
	"strconv"
)

// LabConfig is `svcplane bench lab`'s settings.
type LabConfig struct {
	// Nodes netns nodes in one `svcplane node --runtime netns` process;
	// Pods pause pods spread over them.
	Nodes, Pods int
	// InNetns: this process already runs in the bench's own namespace.
	InNetns bool
}

// Lab runs `bench nodes` with the netns runtime inside a fresh network
// namespace (its host bridge, node and pod namespaces are the bench's
// own): time until N nodes × M pods are up and Ready, agent RSS, per-pod
// cost. Needs root.
func Lab(out, errOut io.Writer, c LabConfig) error {
	if !c.InNetns {
		return inFreshNetns(out, errOut, "bench", "lab", "--in-netns", "--nodes", strconv.Itoa(c.Nodes), "--pods", strconv.Itoa(c.Pods))
	}
	if b, err := exec.Command("ip", "link", "set", "lo", "up").CombinedOutput(); err != nil {
		return fmt.Errorf("ip link set lo up: %v: %s", err, b)
	}
	fmt.Fprintf(out, "bench lab: %d netns nodes × %d pods (registry.k8s.io/pause: a namespace and a veth each), one agent process\n",
		c.Nodes, c.Pods/max(c.Nodes, 1))
	return Nodes(out, errOut, NodesConfig{Nodes: c.Nodes, Pods: c.Pods, Clients: 32, Via: "pods", Hold: 0, PerPod: true,
		AgentArgs: []string{"--runtime=netns"}})
}
