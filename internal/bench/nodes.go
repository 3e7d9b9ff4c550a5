package bench

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"

	"github.com/svcplane/svcplane/internal/bootstrap/periodic"
)

// NodesConfig is `svcplane bench nodes`'s settings.
type NodesConfig struct {
	// Nodes simulated in one agent process; Pods created by Clients
	// concurrent clients.
	Nodes, Pods, Clients int
	// CreateQPS paces the pod creates at this many a second, as
	// clusterloader2's density and load tests create at a fixed rate (0:
	// as fast as the clients go). --via pods only.
	CreateQPS float64
	// ReadyDelay is the pods' readinessProbe initialDelaySeconds.
	ReadyDelay int
	// Via: "pods" (spec.nodeName round-robin; measures the agent) or
	// "deployments" (100 Deployments bound by the scheduler).
	Via string
	// Hold: after all pods are Ready, keep watching heartbeats this long.
	Hold time.Duration
	// ServerArgs and AgentArgs are extra flags of the server and of
	// `svcplane node`.
	ServerArgs, AgentArgs []string
	// KeepLog keeps the agent's log file and the svcplane server's (their
	// paths are printed).
	KeepLog bool
	// PerPod prints the wall time and agent RSS per pod.
	PerPod bool
	// Services: ClusterIP Services created (Clients clients) before the
	// pods, in default.
	Services int
	// Against: svcplane (default), upstream (kube-apiserver, etcd and
	// kube-controller-manager from Upstream) or both, in turn, printed
	// side by side.
	Against  string
	Upstream UpstreamConfig
}

// benchRun is what the monitors gather.
type benchRun struct {
	mu       sync.Mutex
	agentRSS int64
	// serverRSS is the peak of the server side's total; procPeak the
	// peak of each of its processes (server.procs order).
	serverRSS               int64
	procPeak                []int64
	readyzOK, readyzFail    int
	maxNotReady, lastNotRdy int
	// since is when the current phase's sampling began; firstNotReady
	// tells when (after since) and which nodes were first seen NotReady.
	since         time.Time
	firstNotReady string
}

// sawNotReady records the first NotReady sample since run.since: the
// time into the phase and up to three node names. Callers hold run.mu.
func (run *benchRun) sawNotReady(now time.Time, names []string) {
	if run.firstNotReady != "" || len(names) == 0 {
		return
	}
	shown := names[:min(3, len(names))]
	desc := fmt.Sprintf("%.0fs in: %s", now.Sub(run.since).Seconds(), strings.Join(shown, ", "))
	if more := len(names) - len(shown); more > 0 {
		desc += fmt.Sprintf(" (+%d)", more)
	}
	run.firstNotReady = desc
}

// Nodes runs o.Nodes simulated nodes in one `svcplane node` process on a
// fresh server, creates o.Pods pods and prints the time until all are
// Running and Ready, per-pod latency, agent and server RSS, /readyz and
// NotReady nodes; with o.Against upstream or both, the same on
// kube-apiserver, etcd and kube-controller-manager, then both side by
// side.
func Nodes(out, progressOut io.Writer, o NodesConfig) error {
	list, err := sides(o.Against)
	if err != nil {
		return err
	}
	if o.CreateQPS < 0 || (o.CreateQPS > 0 && o.Via == "deployments") {
		return fmt.Errorf("--create-qps %g: want 0 or more, with --via pods (the ReplicaSet controller paces --via deployments)", o.CreateQPS)
	}
	var bins upstreamBinaries
	if slices.Contains(list, SideUpstream) {
		if bins, err = o.Upstream.resolve(); err != nil {
			return err
		}
		if o.Via == "deployments" && bins.scheduler == "" {
			return fmt.Errorf("--via deployments needs a scheduler on the upstream side, and it has none (%s): use --via pods with --against %s", bins.schedulerNote, o.Against)
		}
	}
	results, err := eachSide(out, list, func(side string) (*nodesResult, error) {
		return nodesOnce(out, progressOut, o, side, bins)
	})
	if err != nil {
		return err
	}
	if len(results) > 1 || list[0] == SideUpstream {
		fmt.Fprintf(out, "\n%d nodes, %d pods (--via %s, %d clients), hold %s:\n", o.Nodes, o.Pods, o.Via, o.Clients, o.Hold)
		nodesTable(results).print(out)
		for _, r := range results {
			printSideNotes(out, r.side, r.notes)
		}
	}
	return nil
}

// nodesOnce is one side's run.
func nodesOnce(out, progressOut io.Writer, o NodesConfig, side string, bins upstreamBinaries) (*nodesResult, error) {
	c, err := startSideCluster(side, bins, o.Upstream.APIServerArgs, o.ServerArgs, o.Nodes, o.AgentArgs, o.KeepLog)
	if err != nil {
		return nil, err
	}
	defer c.stop()
	res := newNodesResult(side, c.server, o.Pods)
	fmt.Fprintf(out, "server /readyz 200 after %.2fs\n", c.server.ready.Seconds())
	if u := c.server.upstream; u != nil {
		fmt.Fprintln(out, u.versions)
	}
	if o.KeepLog {
		if c.server.log != "" {
			c.server.keepLog = true
			fmt.Fprintf(out, "server log: %s\n", c.server.log)
		}
		fmt.Fprintf(out, "agent log: %s\n", c.logf.Name())
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	p := startProgress(progressOut)
	defer p.stop()
	tracker := newReadyTracker()
	f := informers.NewSharedInformerFactoryWithOptions(c.client, 0, informers.WithNamespace("bench-nodes"))
	_, _ = f.Core().V1().Pods().Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: tracker.observe, UpdateFunc: func(_, obj interface{}) { tracker.observe(obj) },
	})
	f.Start(ctx.Done())
	f.WaitForCacheSync(ctx.Done())
	nodes := c.nodeLister(ctx)

	start := time.Now()
	p.phase("waiting for nodes Ready with pod CIDRs", func() string { return countReady(nodes) })
	names, err := waitNodesReady(ctx, c.client, nodes, o.Nodes, 5*time.Minute)
	if err != nil {
		return nil, err
	}
	res.nodesReady = time.Since(start)
	fmt.Fprintf(out, "%d nodes Ready with pod CIDRs %.2fs after the agent started\n", o.Nodes, res.nodesReady.Seconds())
	if o.Services > 0 {
		if err := createServices(out, p, []kubernetes.Interface{c.client}, o.Services, o.Clients, false); err != nil {
			return nil, err
		}
	}
	procs := c.server.procs()
	res.before = procsRSS(procs)
	fmt.Fprintf(out, "server RSS before the pods %s\n", describeRSS(procs, res.before))
	run := &benchRun{since: time.Now()}
	go monitorBench(ctx, run, c.client, nodes, c.agent.Process.Pid, procs)
	if err := podsToReady(ctx, out, p, c, &o, names, tracker, run, res); err != nil {
		return nil, err
	}
	res.now = procsRSS(procs)
	run.mu.Lock()
	res.peak = make([]int64, len(res.now))
	for i := range res.now {
		res.peak[i] = res.now[i]
		if i == 0 {
			res.peak[i] = max(res.peak[i], run.serverRSS)
		} else if i-1 < len(run.procPeak) {
			res.peak[i] = max(res.peak[i], run.procPeak[i-1])
		}
	}
	res.agentPeak = run.agentRSS
	run.mu.Unlock()
	fmt.Fprintf(out, "server (%s) RSS now %s, peak %.0f MB: %.1f KB per pod over the RSS before the pods (now), %.1f KB (peak)\n",
		res.processes, describeRSS(procs, res.now), mb(res.peak[0]), res.kbPerPod(res.now[0]), res.kbPerPod(res.peak[0]))
	return res, nil
}

// procsRSS is the total VmRSS of procs, then each one's.
func procsRSS(procs []proc) []int64 {
	out := make([]int64, len(procs)+1)
	for i, p := range procs {
		out[i+1], _ = rssBytes(p.pid)
		out[0] += out[i+1]
	}
	return out
}

// describeRSS renders procsRSS: the one process's RSS with its anon/file
// split, or the total and each process's.
func describeRSS(procs []proc, rss []int64) string {
	if len(procs) == 1 {
		return fmt.Sprintf("%.0f MB (%s)", mb(rss[0]), rssSplit(procs[0].pid))
	}
	parts := make([]string, len(procs))
	for i, p := range procs {
		parts[i] = fmt.Sprintf("%s %.0f", p.name, mb(rss[i+1]))
	}
	return fmt.Sprintf("%.0f MB (%s MB)", mb(rss[0]), strings.Join(parts, ", "))
}

// rssSplit is a process's anonymous and file-backed RSS (the binary's own
// pages and etcd's mmapped database are file-backed).
func rssSplit(pid int) string {
	anon, _ := statusBytes(pid, "RssAnon")
	file, _ := statusBytes(pid, "RssFile")
	return fmt.Sprintf("anon %.0f MB, file %.0f MB", float64(anon)/(1<<20), float64(file)/(1<<20))
}

// podsToReady creates the pods, waits until they are all Running and
// Ready, prints the figures, then holds for o.Hold.
func podsToReady(ctx context.Context, out io.Writer, p *progress, c *cluster, o *NodesConfig, names []string, tracker *readyTracker, run *benchRun, res *nodesResult) error {
	client := c.client
	if err := createPodNamespaceWith(ctx, client, "bench-nodes", !c.server.hasControllers()); err != nil {
		return err
	}
	before, err := scrapeMutatingLatency(ctx, client)
	if err != nil {
		return fmt.Errorf("reading the server's request latencies: %w", err)
	}
	refusedBefore, err := scrapeRefusals(ctx, client)
	if err != nil {
		return fmt.Errorf("reading the server's refusals: %w", err)
	}
	procs := c.server.procs()
	cpu, err := startCPUMeter(append(procNames(procs), "agent"), append(procPIDs(procs), c.agent.Process.Pid))
	if err != nil {
		return err
	}
	start := time.Now()
	tracker.start(start)
	p.phase("creating pods", tracker.counts)
	if err := createBenchPods(ctx, client, o, names, tracker); err != nil {
		return err
	}
	created := time.Since(start)
	res.created = created
	if o.Via == "deployments" {
		fmt.Fprintf(out, "100 Deployments of %d replicas created in %.2fs (pods come from the ReplicaSet controller and the scheduler)\n", o.Pods/100, created.Seconds())
	} else {
		pace := "as fast as the clients go"
		if o.CreateQPS > 0 {
			pace = fmt.Sprintf("paced at --create-qps %g", o.CreateQPS)
		}
		fmt.Fprintf(out, "%d pods created with spec.nodeName in %.2fs: %.1f pods/s (%d clients, %s)\n", o.Pods, created.Seconds(), float64(o.Pods)/created.Seconds(), o.Clients, pace)
	}
	p.phase("waiting for pods Running+Ready", tracker.counts)
	if err := tracker.wait(ctx, o.Pods, 10*time.Minute); err != nil {
		return err
	}
	all := time.Since(start)
	if res.cpu, err = cpu.used(); err != nil {
		return err
	}
	lat := tracker.latencies()
	res.all, res.p50, res.p99 = all, pct(lat, 50), pct(lat, 99)
	fmt.Fprintf(out, "all %d pods Running+Ready %.2fs after the first create (%.2fs after the last); per pod create→Ready p50 %.2fs p99 %.2fs max %.2fs\n",
		o.Pods, all.Seconds(), (all - created).Seconds(), pct(lat, 50), pct(lat, 99), pct(lat, 100))
	fmt.Fprintf(out, "CPU from the first create until all Ready: %s\n", cpu.describe(res.cpu, o.Pods, "pod"))
	after, err := scrapeMutatingLatency(ctx, client)
	if err == nil {
		h := after.since(before)
		p99, n := h.quantile(0.99)
		p50, _ := h.quantile(0.5)
		res.mutating, res.mutP50, res.mutP99 = n, p50, p99
		fmt.Fprintf(out, "mutating requests during the run (POST/PUT/PATCH/DELETE, apiserver_request_duration_seconds): %.0f, p50 %.0f ms, p99 %.0f ms (upstream SLO: p99 ≤ 1 s)\n",
			n, 1000*p50, 1000*p99)
	}
	refusedAfter, rerr := scrapeRefusals(ctx, client)
	if rerr == nil {
		fmt.Fprintf(out, "requests refused with 429 during the run: %s\n", refusedAfter.since(refusedBefore))
	}
	report(out, run, "during the run")
	res.observe(run, false)
	if o.PerPod {
		run.mu.Lock()
		rss := run.agentRSS
		run.mu.Unlock()
		fmt.Fprintf(out, "per pod: %.1f ms of wall time to Ready (all %d pods / %.2fs), %.0f KB of agent RSS\n",
			1000*all.Seconds()/float64(o.Pods), o.Pods, all.Seconds(), float64(rss)/1024/float64(o.Pods))
	}
	if o.Hold > 0 {
		run.mu.Lock()
		run.maxNotReady, run.since, run.firstNotReady = 0, time.Now(), ""
		run.mu.Unlock()
		p.phase("holding "+o.Hold.String()+" to watch heartbeats", run.counts)
		time.Sleep(o.Hold)
		if held, err := scrapeMutatingLatency(ctx, client); err == nil && after != nil {
			p99, n := held.since(after).quantile(0.99)
			fmt.Fprintf(out, "mutating requests during the hold: %.0f, p99 %.0f ms\n", n, 1000*p99)
		}
		if refused, err := scrapeRefusals(ctx, client); err == nil && rerr == nil {
			fmt.Fprintf(out, "requests refused with 429 during the hold: %s\n", refused.since(refusedAfter))
		}
		report(out, run, fmt.Sprintf("after holding %s", o.Hold))
		res.observe(run, true)
	}
	return nil
}

// startAgent runs `svcplane node` with n simulated nodes named
// bench-node-<i> on b's node simulator credentials, logging to logf.
func startAgent(b *server, n int, logf *os.File, extra ...string) (*exec.Cmd, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	args := append([]string{"node", "--kubeconfig", filepath.Join(b.dir, "node-simulator-kubeconfig"),
		"--nodes", fmt.Sprint(n), "--name-prefix", "bench-node-"}, extra...)
	proc := exec.Command(self, args...)
	proc.Stdout, proc.Stderr = logf, logf
	dieWithParent(proc)
	return proc, proc.Start()
}

// counts tells the NotReady nodes for progress lines.
func (run *benchRun) counts() string {
	run.mu.Lock()
	defer run.mu.Unlock()
	return fmt.Sprintf("NotReady nodes now %d, max %d", run.lastNotRdy, run.maxNotReady)
}

func report(out io.Writer, run *benchRun, when string) {
	run.mu.Lock()
	defer run.mu.Unlock()
	first := ""
	if run.firstNotReady != "" {
		first = "; first NotReady " + run.firstNotReady
	}
	fmt.Fprintf(out, "%s: agent max RSS %.0f MB, server max RSS %.0f MB, /readyz %d×200 %d×failed, NotReady nodes max %d (now %d%s)\n",
		when, mb(run.agentRSS), mb(run.serverRSS), run.readyzOK, run.readyzFail, run.maxNotReady, run.lastNotRdy, first)
}

func pct(sorted []time.Duration, p int) float64 {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[min(len(sorted)-1, len(sorted)*p/100)].Seconds()
}

// waitNodesReady waits until n nodes are Ready with pod CIDRs. While some
// lack pod CIDRs it fails at once when the server has said that its
// --cluster-cidr holds no more (nodeipam's CIDRNotAvailable event).
func waitNodesReady(ctx context.Context, client kubernetes.Interface, nodes nodeLister, n int, timeout time.Duration) ([]string, error) {
	deadline := time.Now().Add(timeout)
	var lastCheck time.Time
	for {
		var names []string
		withoutCIDRs := 0
		list, _ := nodes.List(everything())
		for _, node := range list {
			if len(node.Spec.PodCIDRs) == 0 {
				withoutCIDRs++
			}
			if nodeIsReady(node) && len(node.Spec.PodCIDRs) > 0 {
				names = append(names, node.Name)
			}
		}
		if len(names) >= n {
			slices.Sort(names)
			return names, nil
		}
		if withoutCIDRs > 0 && time.Since(lastCheck) >= time.Second {
			lastCheck = time.Now()
			if msg := cidrNotAvailable(ctx, client); msg != "" {
				return nil, fmt.Errorf("%d of %d nodes without pod CIDRs; the server says: %s", withoutCIDRs, len(list), msg)
			}
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("%d of %d nodes Ready with pod CIDRs after %s (%d without pod CIDRs: --cluster-cidr too small?)", len(names), n, timeout, withoutCIDRs)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// cidrNotAvailable returns the message of a CIDRNotAvailable event on a
// Node, or "".
func cidrNotAvailable(ctx context.Context, client kubernetes.Interface) string {
	events, err := client.CoreV1().Events("").List(ctx, metav1.ListOptions{
		FieldSelector: "reason=CIDRNotAvailable,involvedObject.kind=Node", Limit: 1})
	if err != nil {
		return ""
	}
	for _, e := range events.Items {
		if e.Reason == "CIDRNotAvailable" && e.InvolvedObject.Kind == "Node" {
			return e.Message
		}
	}
	return ""
}

func nodeIsReady(n *corev1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// monitorBench samples RSS, /readyz and NotReady nodes every second.
func monitorBench(ctx context.Context, run *benchRun, client kubernetes.Interface, nodes nodeLister, agentPid int, procs []proc) {
	periodic.Run(ctx, clock.RealClock{}, time.Second, nil, "Sampling the bench", func(ctx context.Context) error {
		a, _ := rssBytes(agentPid)
		s := procsRSS(procs)
		rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		err := client.Discovery().RESTClient().Get().AbsPath("/readyz").Do(rctx).Error()
		cancel()
		var notReady []string
		list, _ := nodes.List(everything())
		for _, n := range list {
			if !nodeIsReady(n) {
				notReady = append(notReady, n.Name)
			}
		}
		run.mu.Lock()
		run.agentRSS, run.serverRSS = max(run.agentRSS, a), max(run.serverRSS, s[0])
		if run.procPeak == nil {
			run.procPeak = make([]int64, len(procs))
		}
		for i := range run.procPeak {
			run.procPeak[i] = max(run.procPeak[i], s[i+1])
		}
		if err == nil {
			run.readyzOK++
		} else {
			run.readyzFail++
		}
		run.maxNotReady, run.lastNotRdy = max(run.maxNotReady, len(notReady)), len(notReady)
		slices.Sort(notReady)
		run.sawNotReady(time.Now(), notReady)
		run.mu.Unlock()
		return nil
	})
}

func benchPodSpec(readyDelay int) corev1.PodSpec {
	c := corev1.Container{Name: "app", Image: "registry.k8s.io/pause:3.10"}
	if readyDelay > 0 {
		c.ReadinessProbe = &corev1.Probe{InitialDelaySeconds: int32(readyDelay),
			ProbeHandler: corev1.ProbeHandler{Exec: &corev1.ExecAction{Command: []string{"true"}}}}
	}
	return corev1.PodSpec{Containers: []corev1.Container{c}, TerminationGracePeriodSeconds: ptr.To[int64](1)}
}

// createBenchPods creates the pods with o.Clients concurrent clients.
func createBenchPods(ctx context.Context, client kubernetes.Interface, o *NodesConfig, nodes []string, tr *readyTracker) error {
	if o.Via == "deployments" {
		const deployments = 100
		per := o.Pods / deployments
		for i := 0; i < deployments; i++ {
			labels := map[string]string{"app": fmt.Sprintf("bench-%d", i)}
			_, err := client.AppsV1().Deployments("bench-nodes").Create(ctx, &appsv1.Deployment{
				ObjectMeta: metav1.ObjectMeta{Name: labels["app"]},
				Spec: appsv1.DeploymentSpec{Replicas: ptr.To(int32(per)), Selector: &metav1.LabelSelector{MatchLabels: labels},
					Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: benchPodSpec(o.ReadyDelay)}}},
				metav1.CreateOptions{})
			if err != nil {
				return err
			}
		}
		return nil
	}
	var next atomic.Int64
	var firstErr error
	var once sync.Once
	var wg sync.WaitGroup
	pace := newPacer(o.CreateQPS)
	for w := 0; w < o.Clients; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				if err := pace.Wait(ctx); err != nil {
					once.Do(func() { firstErr = err })
					return
				}
				i := int(next.Add(1)) - 1
				if i >= o.Pods {
					return
				}
				spec := benchPodSpec(o.ReadyDelay)
				spec.NodeName = nodes[i%len(nodes)]
				name := fmt.Sprintf("bench-%d", i)
				tr.created(name, time.Now())
				_, err := client.CoreV1().Pods("bench-nodes").Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: spec}, metav1.CreateOptions{})
				if err != nil {
					once.Do(func() { firstErr = fmt.Errorf("creating %s: %w", name, err) })
					return
				}
			}
		}()
	}
	wg.Wait()
	return firstErr
}
