package bench

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/tools/clientcmd"
)

// TrafficConfig is `svcplane bench traffic`'s settings.
type TrafficConfig struct {
	// Nodes netns nodes (≥ 2), each with its own proxy in ProxyMode.
	Nodes     int
	ProxyMode string
	// Streams bulk TCP connections for Duration per throughput figure;
	// Rounds of the three paths in turn.
	Streams, Rounds int
	Duration        time.Duration
	// Latency is how long each request/response mode runs.
	Latency time.Duration
	// KeepLogs keeps the agent's and the proxies' logs (paths printed).
	KeepLogs bool
	// InNetns: this process already runs in the bench's own namespace.
	InNetns bool
}

// Validate says which setting is out of range.
func (c TrafficConfig) Validate() error {
	switch {
	case c.Nodes < 2:
		return fmt.Errorf("--nodes %d: want at least 2 (client and server on different nodes)", c.Nodes)
	case c.Nodes > 250:
		return fmt.Errorf("--nodes %d: want at most 250", c.Nodes)
	case c.Streams < 1 || c.Streams > 64:
		return fmt.Errorf("--streams %d: want 1 to 64", c.Streams)
	case c.Rounds < 1 || c.Rounds > 20:
		return fmt.Errorf("--rounds %d: want 1 to 20", c.Rounds)
	case c.Duration < time.Second:
		return fmt.Errorf("--duration %s: want at least 1s", c.Duration)
	case c.Latency < time.Second:
		return fmt.Errorf("--latency-duration %s: want at least 1s", c.Latency)
	}
	switch c.ProxyMode {
	case "nftables", "iptables", "ipvs", "userspace":
		return nil
	}
	return fmt.Errorf("--proxy-mode %q: want nftables, iptables, ipvs or userspace", c.ProxyMode)
}

// Args are the command line (after the binary) of the same bench in
// the child inside the fresh namespace.
func (c TrafficConfig) Args() []string {
	a := []string{"bench", "traffic", "--in-netns", "--nodes", strconv.Itoa(c.Nodes), "--proxy-mode", c.ProxyMode,
		"--streams", strconv.Itoa(c.Streams), "--rounds", strconv.Itoa(c.Rounds), "--duration", c.Duration.String(), "--latency-duration", c.Latency.String()}
	if c.KeepLogs {
		a = append(a, "--keep-logs")
	}
	return a
}

// bridgeAddress is the netns runtime's default host bridge address: the
// API server is reached there from the node namespaces.
const bridgeAddress = "10.250.0.1"

// Traffic measures pod → Service → pod across nodes on the netns runtime
// inside a fresh network namespace: bulk TCP throughput and the
// request/response latency the Service adds, each next to the same
// traffic sent to the pod IP, and the throughput of a bare veth pair.
// Needs root.
func Traffic(out, errOut io.Writer, c TrafficConfig) error {
	if err := c.Validate(); err != nil {
		return err
	}
	if !c.InNetns {
		return inFreshNetns(out, errOut, c.Args()...)
	}
	if b, err := exec.Command("ip", "link", "set", "lo", "up").CombinedOutput(); err != nil {
		return fmt.Errorf("ip link set lo up: %v: %s", err, b)
	}
	p := startProgress(errOut)
	defer p.stop()
	p.phase(fmt.Sprintf("starting a server and %d netns nodes with %s proxies", c.Nodes, c.ProxyMode), nil)
	cl, logDir, err := startTrafficCluster(c)
	if err != nil {
		return err
	}
	defer func() {
		cl.stop()
		if !c.KeepLogs {
			os.RemoveAll(logDir)
		}
	}()
	if c.KeepLogs {
		fmt.Fprintf(out, "agent log %s; proxy logs in %s\n", cl.logf.Name(), logDir)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	nodes, err := waitNodesReady(ctx, cl.client, cl.nodeLister(ctx), c.Nodes, 2*time.Minute)
	if err != nil {
		return err
	}
	p.phase("creating the server pod, its Service and the client pod", nil)
	lab, err := setUpTrafficLab(ctx, cl, nodes[0], nodes[1])
	if err != nil {
		return err
	}
	defer lab.close()
	fmt.Fprintf(out, "bench traffic: %d netns nodes, %s proxy in each; client pod %s on %s, server pod %s on %s, Service %s (ports %d→%d bulk, %d→%d echo; the pod IP figures use ports %d and %d of the same servers)\n",
		c.Nodes, c.ProxyMode, lab.client.ip, lab.client.node, lab.server.ip, lab.server.node, lab.clusterIP,
		serviceSinkPort, sinkPort, serviceEchoPort, echoPort, directSinkPort, directEchoPort)
	fmt.Fprintf(out, "machine: %d CPUs, load average %s at the start\n", runtime.NumCPU(), loadAverage())
	if err := lab.measure(out, p, c); err != nil {
		return err
	}
	fmt.Fprintf(out, "machine: load average %s at the end\n", loadAverage())
	return nil
}

// loadAverage is /proc/loadavg's 1, 5 and 15 minute figures.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(b)); err == nil && len(f) >= 3 {
		return strings.Join(f[:3], " ")
	}
	return "unknown"
}

// startTrafficCluster starts a server reachable from the node namespaces
// and one agent of c.Nodes netns nodes whose proxies log to the returned
// directory.
func startTrafficCluster(c TrafficConfig) (*cluster, string, error) {
	b, err := startServer("--bind-address", "0.0.0.0", "--advertise-address", bridgeAddress)
	if err != nil {
		return nil, "", err
	}
	cl := &cluster{server: b, keepLog: c.KeepLogs}
	fail := func(err error) (*cluster, string, error) {
		cl.stop()
		return nil, "", err
	}
	logDir, err := os.MkdirTemp("", "svcplane-bench-traffic-")
	if err != nil {
		return fail(err)
	}
	kc := filepath.Join(b.dir, "netns-proxy-kubeconfig")
	if err := writeProxyKubeconfig(b, kc); err != nil {
		os.RemoveAll(logDir)
		return fail(err)
	}
	if cl.logf, err = os.CreateTemp("", "svcplane-bench-agent-*.log"); err != nil {
		os.RemoveAll(logDir)
		return fail(err)
	}
	cl.agent, err = startAgent(b, c.Nodes, cl.logf, "--runtime=netns", "--proxy-mode="+c.ProxyMode,
		"--proxy-kubeconfig="+kc, "--netns-log-dir="+logDir)
	if err != nil {
		cl.agent = nil
		os.RemoveAll(logDir)
		return fail(err)
	}
	if cl.client, err = b.fastClient(); err != nil {
		os.RemoveAll(logDir)
		return fail(err)
	}
	return cl, logDir, nil
}

// writeProxyKubeconfig mints the node proxies' credentials
// (system:kube-proxy) with `svcplane kubeconfig`, as a user would, for the
// server at the bridge address, verified under the name "kubernetes".
func writeProxyKubeconfig(b *server, path string) error {
	u, err := url.Parse(b.config.Host)
	if err != nil {
		return err
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	serverURL := "https://" + net.JoinHostPort(bridgeAddress, u.Port())
	cmd := exec.Command(self, "kubeconfig", "--data-dir", b.dir, "--user", "system:kube-proxy", "--server", serverURL, "-o", path)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("svcplane kubeconfig: %v: %s", err, strings.TrimSpace(string(out)))
	}
	cfg, err := clientcmd.LoadFromFile(path)
	if err != nil {
		return err
	}
	for _, cluster := range cfg.Clusters {
		cluster.TLSServerName = "kubernetes"
	}
	return clientcmd.WriteToFile(*cfg, path)
}

// trafficLab is the bench's pods with the sink and echo server
// listening in the server pod.
type trafficLab struct {
	client, server *trafficPod
	clusterIP      string
	// sink serves the Service's bulk port, directSink the pod IP's.
	sink, directSink *sink
	listeners        []net.Listener
}

func setUpTrafficLab(ctx context.Context, cl *cluster, clientNode, serverNode string) (*trafficLab, error) {
	lab := &trafficLab{}
	var err error
	if lab.clusterIP, err = createTrafficObjects(ctx, cl.client, clientNode, serverNode); err != nil {
		return nil, err
	}
	if lab.server, err = waitTrafficPod(ctx, cl.client, "traffic-server"); err != nil {
		return nil, err
	}
	if lab.client, err = waitTrafficPod(ctx, cl.client, "traffic-client"); err != nil {
		lab.close()
		return nil, err
	}
	// Listening on the pod IP fails unless the namespace is the pod's.
	srv := nsEndpoint{lab.server.ns}
	ls := map[int]net.Listener{}
	for _, port := range []int{sinkPort, echoPort, directSinkPort, directEchoPort} {
		l, err := srv.listen(net.JoinHostPort(lab.server.ip, strconv.Itoa(port)))
		if err != nil {
			lab.close()
			return nil, fmt.Errorf("listening in the server pod: %w", err)
		}
		lab.listeners = append(lab.listeners, l)
		ls[port] = l
	}
	lab.sink, lab.directSink = startSink(ls[sinkPort]), startSink(ls[directSinkPort])
	go serveEcho(ls[echoPort])
	go serveEcho(ls[directEchoPort])
	if err := lab.waitService(ctx); err != nil {
		lab.close()
		return nil, err
	}
	return lab, nil
}

// waitService waits until the client pod's node has programmed the
// Service: a request through the ClusterIP is answered. Each attempt
// connects from its own source port below the ephemeral range: a SYN
// sent before the node's proxy has the Service leaves a conntrack entry
// without DNAT for that tuple (SYN_SENT, 120 s), and a later connection
// that the kernel gave the same ephemeral port would match it and never
// reach the pod — as on any Linux node that sees a Service's traffic
// before its rules.
func (lab *trafficLab) waitService(ctx context.Context) error {
	addr := net.JoinHostPort(lab.clusterIP, strconv.Itoa(serviceEchoPort))
	client := nsEndpoint{lab.client.ns}
	clientIP := net.ParseIP(lab.client.ip)
	req, resp := make([]byte, requestSize), make([]byte, requestSize)
	var last error
	attempt := 0
	err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, time.Minute, true, func(context.Context) (bool, error) {
		attempt++
		c, err := client.dialFrom(&net.TCPAddr{IP: clientIP, Port: probePortBase + attempt}, addr)
		if err != nil {
			last = err
			return false, nil
		}
		defer c.Close()
		_, last = oneRequest(client, addr, c, req, resp)
		return last == nil, nil
	})
	if err != nil {
		return fmt.Errorf("the Service %s never answered from the client pod: %v", addr, last)
	}
	return nil
}

// probePortBase + n is waitService's n-th source port: below the
// default ephemeral range (32768–60999), so the measurements never reuse
// one.
const probePortBase = 20000

func (lab *trafficLab) close() {
	for _, l := range lab.listeners {
		l.Close()
	}
	for _, p := range []*trafficPod{lab.client, lab.server} {
		if p != nil {
			p.ns.Close()
		}
	}
}
