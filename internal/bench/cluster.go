package bench

import (
	"context"
	"fmt"
	"math/bits"
	"os"
	"os/exec"
	"slices"
	"strings"
	"syscall"

	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
)

// cluster is a fresh server with one `svcplane node` agent of simulated
// nodes logging to a temporary file.
type cluster struct {
	server  *server
	agent   *exec.Cmd
	logf    *os.File
	keepLog bool
	// client is an admin client without rate limits (fastClient).
	client kubernetes.Interface
}

// startCluster starts the server with serverArgs, then the agent with
// nodes nodes and agentArgs.
func startCluster(nodes int, serverArgs, agentArgs []string, keepLog bool) (*cluster, error) {
	b, err := startServer(withClusterCIDR(serverArgs, nodes)...)
	if err != nil {
		return nil, err
	}
	return startAgentOn(b, nodes, agentArgs, keepLog)
}

// startUpstreamCluster starts the upstream side (startUpstream) with a
// cluster CIDR for nodes nodes, then the agent.
func startUpstreamCluster(bins upstreamBinaries, apiserverArgs []string, nodes int, agentArgs []string, keepLog bool) (*cluster, error) {
	b, err := startUpstream(bins, clusterCIDRFor(nodes), apiserverArgs)
	if err != nil {
		return nil, err
	}
	return startAgentOn(b, nodes, agentArgs, keepLog)
}

// startSideCluster starts side's cluster: the upstream side (bins,
// kube-apiserver flags apiserverArgs) or svcplane's (server flags
// serverArgs).
func startSideCluster(side string, bins upstreamBinaries, apiserverArgs, serverArgs []string, nodes int, agentArgs []string, keepLog bool) (*cluster, error) {
	if side == SideUpstream {
		return startUpstreamCluster(bins, apiserverArgs, nodes, agentArgs, keepLog)
	}
	return startCluster(nodes, serverArgs, agentArgs, keepLog)
}

// startAgentOn starts the agent on the running server b.
func startAgentOn(b *server, nodes int, agentArgs []string, keepLog bool) (*cluster, error) {
	var err error
	c := &cluster{server: b, keepLog: keepLog}
	if c.logf, err = os.CreateTemp("", "svcplane-bench-agent-*.log"); err != nil {
		c.stop()
		return nil, err
	}
	if c.agent, err = startAgent(b, nodes, c.logf, agentArgs...); err != nil {
		c.agent = nil
		c.stop()
		return nil, err
	}
	if c.client, err = b.fastClient(); err != nil {
		c.stop()
		return nil, err
	}
	return c, nil
}

// stop ends the agent, then the server, and removes the log unless kept.
func (c *cluster) stop() {
	if c.agent != nil {
		_ = c.agent.Process.Signal(syscall.SIGTERM)
		_ = c.agent.Wait()
	}
	if c.logf != nil && !c.keepLog {
		os.Remove(c.logf.Name())
	}
	c.server.stop()
}

// nodeLister starts a Node informer until ctx ends and returns its lister
// once synced.
func (c *cluster) nodeLister(ctx context.Context) nodeLister {
	nf := informers.NewSharedInformerFactory(c.client, 0)
	nodes := nf.Core().V1().Nodes().Lister()
	nf.Start(ctx.Done())
	nf.WaitForCacheSync(ctx.Done())
	return nodes
}

// countReady tells the Ready nodes with pod CIDRs for progress lines.
func countReady(nodes nodeLister) string {
	list, _ := nodes.List(everything())
	ready := 0
	for _, n := range list {
		if nodeIsReady(n) && len(n.Spec.PodCIDRs) > 0 {
			ready++
		}
	}
	return fmt.Sprintf("%d of %d nodes Ready with pod CIDRs", ready, len(list))
}

// withClusterCIDR adds a --cluster-cidr that holds nodes /24 pod subnets
// (the default 10.244.0.0/16 holds 256) unless args give one: inside
// 10.128.0.0/10 (16,384 nodes at most), clear of the Service range
// 10.96.0.0/12 and of the agent's node addresses 10.240.0.0/16.
func withClusterCIDR(args []string, nodes int) []string {
	for _, a := range args {
		if a == "--cluster-cidr" || strings.HasPrefix(a, "--cluster-cidr=") {
			return args
		}
	}
	cidr := clusterCIDRFor(nodes)
	if cidr == defaultClusterCIDR {
		return args
	}
	return append(slices.Clone(args), "--cluster-cidr="+cidr)
}

// defaultClusterCIDR is svcplane's default --cluster-cidr.
const defaultClusterCIDR = "10.244.0.0/16"

// clusterCIDRFor is the default when it holds nodes /24s, else a
// 10.128.0.0 prefix that does (see withClusterCIDR).
func clusterCIDRFor(nodes int) string {
	prefix := 24 - bits.Len(uint(max(nodes, 1)-1))
	if prefix >= 16 {
		return defaultClusterCIDR
	}
	return fmt.Sprintf("10.128.0.0/%d", max(prefix, 10))
}
