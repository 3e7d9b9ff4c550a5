package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/svcplane/svcplane/internal/bench"
)

func newBenchCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "bench", Short: "Measure svcplane on this machine and print the figures"}
	cmd.AddCommand(newBenchServerCommand(), newBenchServicesCommand(), newBenchProxyCommand(), newBenchNodesCommand(), newBenchLabCommand(), newBenchTrafficCommand(),
		newBenchDeploymentCommand(), newBenchHACommand(), newBenchDNSCommand())
	return cmd
}

func newBenchDNSCommand() *cobra.Command {
	c := bench.DNSConfig{Services: 5000, Endpoints: 10, Duration: 5 * time.Second, Concurrency: []int{1, 2, 4, 8, 16, 32}, Echo: true}
	var echoServe string
	cmd := &cobra.Command{
		Use:   "dns",
		Short: "Cluster DNS on a fresh server with N Services × M endpoints: print queries/s and latency per concurrency, the best q/s at p99 ≤ 1 ms, and RSS (side by side with CoreDNS given --coredns)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if echoServe != "" {
				addr, ready, ok := strings.Cut(echoServe, ",")
				if !ok {
					return fmt.Errorf("--echo-serve %q: want <dns address>,<ready address>", echoServe)
				}
				return bench.DNSEcho(addr, ready)
			}
			return bench.DNS(cmd.OutOrStdout(), cmd.ErrOrStderr(), c)
		},
	}
	f := cmd.Flags()
	f.IntVar(&c.Services, "services", c.Services, "Number of ClusterIP Services.")
	f.IntVar(&c.Endpoints, "endpoints", c.Endpoints, "Ready endpoints per Service (one EndpointSlice each).")
	f.DurationVar(&c.Duration, "duration", c.Duration, "Length of each concurrency step.")
	f.IntSliceVar(&c.Concurrency, "concurrency", c.Concurrency, "Closed-loop UDP clients per step.")
	f.StringVar(&c.CoreDNS, "coredns", c.CoreDNS, "A coredns binary to run side by side (kubernetes plugin; cache off, and cache 30).")
	f.BoolVar(&c.Echo, "echo", c.Echo, "Also measure a UDP echo process that does no DNS work: the most this client reaches on this machine.")
	f.StringVar(&c.CPUProfile, "cpuprofile", "", "Write a CPU profile of the svcplane dns process over the run to this file (absolute path).")
	f.StringVar(&c.MemProfile, "memprofile", "", "Write a heap profile of the svcplane dns process, when it ends, to this file (absolute path).")
	f.StringVar(&echoServe, "echo-serve", "", "Internal: serve as the echo floor on <dns address>,<ready address>.")
	_ = f.MarkHidden("echo-serve")
	return cmd
}

func newBenchHACommand() *cobra.Command {
	c := bench.HAConfig{Observe: time.Minute, Rounds: 20}
	cmd := &cobra.Command{
		Use:   "ha",
		Short: "Three servers on one etcd: print endpoint writes while all live, the time for a killed and a stopped server to leave the kubernetes endpoints, and concurrent-start success",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return bench.HA(cmd.OutOrStdout(), cmd.ErrOrStderr(), c)
		},
	}
	cmd.Flags().DurationVar(&c.Observe, "observe", c.Observe, "How long endpoint writes are counted with all three servers live.")
	cmd.Flags().IntVar(&c.Rounds, "rounds", c.Rounds, "Rounds of 2..5 servers started at the same moment.")
	return cmd
}

func newBenchServerCommand() *cobra.Command {
	c := bench.ServerConfig{Runs: 3, Idle: 10 * time.Second, Kubectl: "kubectl"}
	cmd := &cobra.Command{
		Use:   "server",
		Short: "Start `svcplane server` on a fresh embedded etcd; print time to /readyz 200, idle RSS and RSS after a round of kubectl commands (--against upstream|both: Kubernetes' kube-apiserver + etcd + kube-controller-manager, side by side)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return bench.Server(cmd.OutOrStdout(), cmd.ErrOrStderr(), c)
		},
	}
	cmd.Flags().IntVar(&c.Runs, "runs", c.Runs, "Number of fresh starts.")
	cmd.Flags().DurationVar(&c.Idle, "idle", c.Idle, "How long the server idles before RSS is read (at start and after the kubectl round).")
	cmd.Flags().StringVar(&c.Kubectl, "kubectl", c.Kubectl, "kubectl binary of the round of a dozen typical commands (\"\" skips the round).")
	addUpstreamFlags(cmd.Flags(), &c.Against, &c.Upstream)
	return cmd
}

// addUpstreamFlags registers --against and where the upstream side's
// binaries are.
func addUpstreamFlags(f *pflag.FlagSet, against *string, u *bench.UpstreamConfig) {
	*against = bench.SideSvcplane
	u.Dir = bench.DefaultUpstreamDir()
	f.StringVar(against, "against", *against, "Which server to measure: svcplane; upstream (Kubernetes "+bench.UpstreamVersion+"'s kube-apiserver on etcd, with kube-controller-manager running svcplane's controllers and kube-scheduler when their binaries are there); or both, in turn, then printed side by side.")
	f.StringVar(&u.Dir, "upstream-dir", u.Dir, "Directory of the upstream binaries (kube-apiserver, kube-controller-manager and kube-scheduler as ../shared/tools/build-upstream.sh writes them; etcd as hack/build-etcd.sh does).")
	f.StringVar(&u.APIServer, "kube-apiserver", "", "kube-apiserver binary (default <upstream-dir>/kube-apiserver).")
	f.StringVar(&u.ControllerManager, "kube-controller-manager", "", "kube-controller-manager binary (default <upstream-dir>/kube-controller-manager when it exists; 'none': none, the bench then sets pod CIDRs and default ServiceAccounts itself).")
	f.StringVar(&u.Scheduler, "kube-scheduler", "", "kube-scheduler binary (default <upstream-dir>/kube-scheduler when it exists; 'none': none).")
	f.StringVar(&u.Etcd, "etcd", "", "etcd binary of the upstream side (default <upstream-dir>/etcd).")
	f.StringArrayVar(&u.APIServerArgs, "kube-apiserver-arg", nil, "Extra flag of kube-apiserver (repeatable; not split at commas).")
}

func newBenchServicesCommand() *cobra.Command {
	c := bench.ServicesConfig{Services: 5000, Clients: 32, Protobuf: true}
	cmd := &cobra.Command{
		Use:   "services",
		Short: "Create N ClusterIP Services with W concurrent clients on a fresh server; print rate, p50/p99 and check uniqueness (--against upstream|both: Kubernetes' kube-apiserver + etcd + kube-controller-manager, in turn)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return bench.Services(cmd.OutOrStdout(), cmd.ErrOrStderr(), c)
		},
	}
	f := cmd.Flags()
	f.IntVar(&c.Services, "services", c.Services, "Number of Services to create.")
	f.IntVar(&c.Clients, "clients", c.Clients, "Concurrent clients.")
	f.IntVar(&c.Connections, "connections", 0, "Client connections the clients share (0: one per client; 1: every request over one HTTP/2 connection, as one clientset does).")
	f.BoolVar(&c.Protobuf, "protobuf", c.Protobuf, "Talk protobuf, as client-go programs of core types usually do (false: JSON, as kubectl).")
	f.BoolVar(&c.Headless, "headless", false, "Create headless Services (no ClusterIP) for comparison.")
	f.StringVar(&c.Kubeconfig, "kubeconfig", "", "Run against this running server instead of starting a fresh one (its default namespace must have no bench-* Services).")
	f.StringVar(&c.As, "as", "", "Create the Services as this user (a client certificate bound to ClusterRole edit in default by a RoleBinding), so that RBAC decides every request; prints the server's authorization time per request.")
	addUpstreamFlags(f, &c.Against, &c.Upstream)
	f.StringArrayVar(&c.ServerArgs, "server-arg", nil, "Extra flag for the server (repeatable; not split at commas), e.g. --server-arg=--service-ip-allocator=bitmap.")
	return cmd
}

func newBenchProxyCommand() *cobra.Command {
	c := bench.ProxyConfig{Mode: "nftables", Services: 5000, Endpoints: 10, Nodes: 100, IPTablesChunk: -1, Repeat: 3}
	cmd := &cobra.Command{
		Use:   "proxy",
		Short: "Sync a synthetic cluster into a proxy backend in a fresh network namespace (--real: `svcplane proxy` processes against a real server); print sync times and RSS",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return bench.Proxy(cmd.OutOrStdout(), cmd.ErrOrStderr(), c)
		},
	}
	f := cmd.Flags()
	f.IntVar(&c.Services, "services", c.Services, "Number of Services (one TCP port each).")
	f.IntVar(&c.Endpoints, "endpoints", c.Endpoints, "Endpoints per Service.")
	f.IntVar(&c.Nodes, "nodes", c.Nodes, "Nodes the endpoints are spread over round-robin; the proxy's node is one of them (1: every endpoint local; 0: no node names).")
	f.StringVar(&c.CPUProfile, "cpuprofile", "", "Write a CPU profile of the proxy side to this file (absolute path).")
	f.StringVar(&c.MemProfile, "memprofile", "", "Write a heap profile (after the last sync) to this file (absolute path).")
	f.StringVar(&c.Mode, "mode", c.Mode, "Backend to measure: nftables, iptables, ipvs (virtual servers and ipsets in the Fakes: no IPVS module here) or userspace; with --real a comma-separated list of nftables, iptables, userspace.")
	f.StringVar(&c.IPTablesVariant, "iptables-variant", "", "iptables mode: legacy, nft, or empty for every installed one.")
	f.IntVar(&c.IPTablesChunk, "iptables-chunk", c.IPTablesChunk, "iptables mode: chains per restore (-1: the backend's default for the variant).")
	f.BoolVar(&c.Real, "real", false, "Run `svcplane proxy --config` (one process per mode; --mode takes a comma-separated list, e.g. nftables,iptables,userspace) against a fresh `svcplane server` holding the Services, in a fresh network namespace; print the proxy's own kubeproxy_sync_* figures and its RSS.")
	f.StringVar(&c.HeapProfileDir, "heap-profile-dir", "", "With --real: save each proxy's /debug/pprof/heap after its full sync in this directory.")
	f.StringVar(&c.CPUProfileDir, "cpu-profile-dir", "", "With --real: save each proxy's /debug/pprof/profile over its changes in this directory.")
	f.IntVar(&c.Repeat, "repeat", c.Repeat, "With --real: measure the endpoint change and the new Service this many times (the table shows the median).")
	f.BoolVar(&c.KeepLog, "keep-log", false, "With --real: keep the proxies' logs (their paths are printed on failure).")
	f.StringArrayVar(&c.ProxyArgs, "proxy-arg", nil, "With --real: extra flag of `svcplane proxy` (repeatable).")
	f.BoolVar(&c.InNetns, "in-netns", false, "Internal: run inside the namespace made for the bench.")
	f.StringVar(&c.UserspaceRole, "userspace-role", "", "Internal: a helper process of the userspace bench.")
	for _, hidden := range []string{"iptables-chunk", "in-netns", "userspace-role"} {
		_ = f.MarkHidden(hidden)
	}
	return cmd
}

func newBenchNodesCommand() *cobra.Command {
	c := bench.NodesConfig{Nodes: 1000, Pods: 30000, Clients: 32, Via: "pods", Hold: 45 * time.Second}
	cmd := &cobra.Command{
		Use:   "nodes",
		Short: "Run N simulated nodes in one `svcplane node` process on a fresh server, create P pods; print time to all Running+Ready, agent and server RSS (per pod), mutating-request p50/p99, /readyz and NotReady nodes (--against upstream|both: Kubernetes' kube-apiserver + etcd + kube-controller-manager, side by side)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkNodeCount(c.Nodes, 1); err != nil {
				return err
			}
			return bench.Nodes(cmd.OutOrStdout(), cmd.ErrOrStderr(), c)
		},
	}
	f := cmd.Flags()
	f.IntVar(&c.Nodes, "nodes", c.Nodes, "Simulated nodes (one agent process).")
	f.IntVar(&c.Pods, "pods", c.Pods, "Pods to create.")
	f.IntVar(&c.Clients, "clients", c.Clients, "Concurrent creating clients.")
	f.Float64Var(&c.CreateQPS, "create-qps", 0, "Create the pods at this many a second, evenly spaced, as clusterloader2 paces its creates (0: as fast as the clients go; --via pods).")
	f.IntVar(&c.Services, "services", 0, "ClusterIP Services to create (in default) before the pods.")
	f.StringVar(&c.Via, "via", c.Via, "'pods': pods created with spec.nodeName round-robin (measures the agent); 'deployments': 100 Deployments bound by the scheduler.")
	f.IntVar(&c.ReadyDelay, "ready-delay", 0, "readinessProbe initialDelaySeconds of the pods.")
	f.DurationVar(&c.Hold, "hold", c.Hold, "After all pods are Ready, keep watching heartbeats this long (more than the 50 s grace period shows nodes stay Ready).")
	f.StringArrayVar(&c.ServerArgs, "server-arg", nil, "Extra flag for the server (repeatable; not split at commas).")
	f.StringArrayVar(&c.AgentArgs, "agent-arg", nil, "Extra flag for `svcplane node` (repeatable), e.g. --agent-arg=--workers=32.")
	f.BoolVar(&c.KeepLog, "keep-log", false, "Keep the agent's log file and the svcplane server's (their paths are printed); with --server-arg=-v=1 the server's says which watchers it closed.")
	addUpstreamFlags(f, &c.Against, &c.Upstream)
	return cmd
}

func newBenchLabCommand() *cobra.Command {
	c := bench.LabConfig{Nodes: 100, Pods: 3000}
	cmd := &cobra.Command{
		Use:   "lab",
		Short: "As root, in a fresh network namespace: N netns nodes (`svcplane node --runtime netns`) and P pause pods on a fresh server; print time to all Running+Ready, agent RSS and per-pod cost",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkNodeCount(c.Nodes, 1); err != nil {
				return err
			}
			return bench.Lab(cmd.OutOrStdout(), cmd.ErrOrStderr(), c)
		},
	}
	f := cmd.Flags()
	f.IntVar(&c.Nodes, "nodes", c.Nodes, "netns nodes (one agent process).")
	f.IntVar(&c.Pods, "pods", c.Pods, "Pods to create (spec.nodeName round-robin).")
	f.BoolVar(&c.InNetns, "in-netns", false, "Internal: already inside the bench's namespace.")
	_ = f.MarkHidden("in-netns")
	return cmd
}

func newBenchTrafficCommand() *cobra.Command {
	c := bench.TrafficConfig{Nodes: 2, ProxyMode: "nftables", Streams: 1, Rounds: 3, Duration: 3 * time.Second, Latency: 5 * time.Second}
	cmd := &cobra.Command{
		Use:   "traffic",
		Short: "As root, in a fresh network namespace: netns nodes with a proxy each, a server pod behind a ClusterIP Service and a client pod on another node; print bulk TCP throughput and request/response latency through the ClusterIP next to the pod IP (and a bare veth pair)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return bench.Traffic(cmd.OutOrStdout(), cmd.ErrOrStderr(), c)
		},
	}
	f := cmd.Flags()
	f.IntVar(&c.Nodes, "nodes", c.Nodes, "netns nodes (one agent process); the client runs on the first, the server on the second.")
	f.StringVar(&c.ProxyMode, "proxy-mode", c.ProxyMode, "Every node's service proxy: nftables, iptables, ipvs or userspace.")
	f.IntVar(&c.Streams, "streams", c.Streams, "Concurrent bulk TCP connections per throughput figure.")
	f.DurationVar(&c.Duration, "duration", c.Duration, "Length of each throughput figure.")
	f.IntVar(&c.Rounds, "rounds", c.Rounds, "Throughput rounds (veth pair, pod IP, ClusterIP in turn each); the median is printed too.")
	f.DurationVar(&c.Latency, "latency-duration", c.Latency, "Length of each request/response mode (kept-alive, new connection per request).")
	f.BoolVar(&c.KeepLogs, "keep-logs", false, "Keep the agent's and the proxies' logs (their paths are printed).")
	f.BoolVar(&c.InNetns, "in-netns", false, "Internal: already inside the bench's namespace.")
	_ = f.MarkHidden("in-netns")
	return cmd
}

func newBenchDeploymentCommand() *cobra.Command {
	c := bench.DeploymentConfig{Nodes: 100, Replicas: 1000, Grace: 30}
	cmd := &cobra.Command{
		Use:   "deployment",
		Short: "On a fresh server with N simulated nodes, create one Deployment of R replicas; print the time until it is Available with every replica, then until a background delete leaves no pod or ReplicaSet (--against upstream|both: Kubernetes' kube-apiserver + etcd + kube-controller-manager + kube-scheduler, side by side)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkNodeCount(c.Nodes, 1); err != nil {
				return err
			}
			return bench.Deployment(cmd.OutOrStdout(), cmd.ErrOrStderr(), c)
		},
	}
	f := cmd.Flags()
	f.IntVar(&c.Nodes, "nodes", c.Nodes, "Simulated nodes (one agent process).")
	f.IntVar(&c.Replicas, "replicas", c.Replicas, "Replicas of the Deployment.")
	f.Int64Var(&c.Grace, "termination-grace-period", c.Grace, "terminationGracePeriodSeconds of the pods (a simulated pod ends at once on deletion, as a pause container does at SIGTERM).")
	f.StringArrayVar(&c.ServerArgs, "server-arg", nil, "Extra flag for the server (repeatable).")
	f.StringArrayVar(&c.AgentArgs, "agent-arg", nil, "Extra flag for `svcplane node` (repeatable).")
	addUpstreamFlags(f, &c.Against, &c.Upstream)
	return cmd
}

// checkNodeCount refuses a --nodes below least.
func checkNodeCount(n, least int) error {
	if n < least {
		return fmt.Errorf("--nodes %d: want %d or more", n, least)
	}
	return nil
}
