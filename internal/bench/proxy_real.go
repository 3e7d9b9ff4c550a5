package bench

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// The real-process proxy bench (`svcplane bench proxy --real`): in a
// fresh network namespace, a fresh `svcplane server` holds N Services × M
// endpoints; for each mode a `svcplane proxy --config <file>` child runs
// against it as a user runs it, and the figures are the proxy's own
// kubeproxy_sync_* metrics and its RSS from /proc.

const (
	// realBenchNamespace holds the bench's Services.
	realBenchNamespace = "bench"
	// settleQuiet: a sync burst is over when no sync followed for this
	// long (more than the default minSyncPeriod of 1 s).
	settleQuiet = 1500 * time.Millisecond
	// syncTimeout bounds the wait for a sync a change should cause.
	syncTimeout = 2 * time.Minute
)

// realFigures are one mode's results.
type realFigures struct {
	mode string
	// start is from the proxy's exec to its first full sync in the
	// metrics; full that sync's duration (fullCount full syncs by then).
	start, full time.Duration
	fullCount   int
	// changes and newSvcs: per repetition, the syncs each caused.
	changes, newSvcs     []syncCost
	rss, anon, file, hwm int64
}

// medianSync is the middle repetition's summed sync duration.
func medianSync(costs []syncCost) time.Duration {
	return medianOf(costs, func(c syncCost) time.Duration { return c.d })
}

// medianOf is the middle repetition's figure.
func medianOf(costs []syncCost, figure func(syncCost) time.Duration) time.Duration {
	ds := make([]time.Duration, len(costs))
	for i, c := range costs {
		ds[i] = figure(c)
	}
	slices.Sort(ds)
	if len(ds) == 0 {
		return 0
	}
	return ds[len(ds)/2]
}

// costList renders each repetition: "17.4 ms (1 sync; 41.2 ms after
// the write)".
func costList(costs []syncCost) string {
	var parts []string
	for _, c := range costs {
		parts = append(parts, fmt.Sprintf("%.1f ms (%d sync; %.1f ms after the write)", ms(c.d), c.n, ms(c.sinceWrite)))
	}
	return strings.Join(parts, ", ")
}

// medianSinceWrite is the middle repetition's time from the API write to
// the end of its last sync.
func medianSinceWrite(costs []syncCost) time.Duration {
	return medianOf(costs, func(c syncCost) time.Duration { return c.sinceWrite })
}

// realProxyBench runs the real-process bench for each of cfg.Mode's
// comma-separated modes.
func realProxyBench(out, errOut io.Writer, cfg ProxyConfig) error {
	if cfg.Services < 1 || cfg.Endpoints < 1 || cfg.Repeat < 1 {
		return fmt.Errorf("--services, --endpoints and --repeat must be at least 1")
	}
	modes := strings.Split(cfg.Mode, ",")
	for _, m := range modes {
		if m != "nftables" && m != "iptables" && m != "userspace" {
			return fmt.Errorf("--mode %q: --real measures nftables, iptables or userspace (no IPVS kernel module here)", m)
		}
	}
	if !cfg.InNetns {
		return inFreshNetns(out, errOut, cfg.realChildArgs()...)
	}
	if b, err := exec.Command("ip", "link", "set", "lo", "up").CombinedOutput(); err != nil {
		return fmt.Errorf("ip link set lo up: %v: %s", err, b)
	}
	prog := startProgress(errOut)
	defer prog.stop()
	prog.phase("starting svcplane server", nil)
	srv, err := startServer()
	if err != nil {
		return err
	}
	defer srv.stop()
	client, err := srv.fastClient()
	if err != nil {
		return err
	}
	prog.phase(fmt.Sprintf("creating %d Services × %d endpoints", cfg.Services, cfg.Endpoints), nil)
	t0 := time.Now()
	if err := fillBenchServices(client, realBenchNamespace, cfg.Services, cfg.Endpoints, cfg.Nodes); err != nil {
		return err
	}
	fmt.Fprintf(out, "%d Services × %d endpoints over %d nodes in a fresh svcplane server (created in %.1fs, %d clients); `svcplane proxy --config` as node-0, fresh network namespace\n",
		cfg.Services, cfg.Endpoints, cfg.Nodes, time.Since(t0).Seconds(), fillWorkers)
	var all []realFigures
	for i, mode := range modes {
		f, err := realProxyMode(out, prog, srv, client, cfg, mode, i, i == len(modes)-1)
		if err != nil {
			return fmt.Errorf("%s: %w", mode, err)
		}
		all = append(all, f)
	}
	printRealTable(out, all)
	return nil
}

func (cfg ProxyConfig) realChildArgs() []string {
	args := []string{"bench", "proxy", "--real", "--in-netns", "--mode", cfg.Mode,
		"--services", strconv.Itoa(cfg.Services), "--endpoints", strconv.Itoa(cfg.Endpoints), "--nodes", strconv.Itoa(cfg.Nodes),
		"--iptables-variant", cfg.IPTablesVariant}
	if cfg.HeapProfileDir != "" {
		args = append(args, "--heap-profile-dir", cfg.HeapProfileDir)
	}
	if cfg.CPUProfileDir != "" {
		args = append(args, "--cpu-profile-dir", cfg.CPUProfileDir)
	}
	args = append(args, "--repeat", strconv.Itoa(cfg.Repeat))
	if cfg.KeepLog {
		args = append(args, "--keep-log")
	}
	for _, a := range cfg.ProxyArgs {
		args = append(args, "--proxy-arg="+a)
	}
	return args
}

// realProxy is one `svcplane proxy` child.
type realProxy struct {
	cmd     *exec.Cmd
	log     *os.File
	metrics string
}

// startRealProxy writes a KubeProxyConfiguration for mode into dir and
// starts `svcplane proxy --config` with it.
func startRealProxy(dir, mode string, cfg ProxyConfig) (*realProxy, error) {
	metrics, healthz, err := freeAddrPair()
	if err != nil {
		return nil, err
	}
	conf := filepath.Join(dir, "kube-proxy-"+mode+".yaml")
	body := fmt.Sprintf(`apiVersion: kubeproxy.config.k8s.io/v1alpha1
kind: KubeProxyConfiguration
mode: %s
hostnameOverride: node-0
clientConnection:
  kubeconfig: %s
metricsBindAddress: %s
healthzBindAddress: %s
enableProfiling: true
`, mode, filepath.Join(dir, "kubeconfig"), metrics, healthz)
	if err := os.WriteFile(conf, []byte(body), 0o600); err != nil {
		return nil, err
	}
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	args := []string{"proxy", "--config", conf}
	if mode == "iptables" && cfg.IPTablesVariant != "" {
		args = append(args, "--iptables-variant", cfg.IPTablesVariant)
	}
	args = append(args, cfg.ProxyArgs...)
	p := &realProxy{cmd: exec.Command(self, args...), metrics: metrics}
	if p.log, err = os.CreateTemp("", "svcplane-bench-proxy-"+mode+"-*.log"); err != nil {
		return nil, err
	}
	p.cmd.Stdout, p.cmd.Stderr = p.log, p.log
	dieWithParent(p.cmd)
	if err := p.cmd.Start(); err != nil {
		return nil, err
	}
	return p, nil
}

// stop ends the proxy with SIGTERM; its log is removed unless keep.
func (p *realProxy) stop(keep bool) {
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	_ = p.cmd.Wait()
	p.log.Close()
	if !keep {
		os.Remove(p.log.Name())
	}
}

// waitSyncs polls the metrics until more syncs than prev.total() were
// made and none followed for settleQuiet.
func (p *realProxy) waitSyncs(prev syncCounts) (syncCounts, error) {
	deadline := time.Now().Add(syncTimeout)
	cur, lastChange := prev, time.Time{}
	for {
		c, err := scrapeSyncs(p.metrics)
		if err == nil && c.total() != cur.total() {
			cur, lastChange = c, time.Now()
		}
		if cur.total() > prev.total() && time.Since(lastChange) >= settleQuiet {
			return cur, nil
		}
		if time.Now().After(deadline) {
			return cur, fmt.Errorf("no sync within %s (log: %s): %v", syncTimeout, p.log.Name(), err)
		}
		if st := p.cmd.ProcessState; st != nil {
			return cur, fmt.Errorf("proxy exited: %s (log: %s)", st, p.log.Name())
		}
		time.Sleep(scrapeInterval)
	}
}

// readRSS fills f's memory figures from the proxy's /proc status.
func (p *realProxy) readRSS(f *realFigures) error {
	pid := p.cmd.Process.Pid
	var err error
	for _, v := range []struct {
		field string
		into  *int64
	}{{"VmRSS", &f.rss}, {"RssAnon", &f.anon}, {"RssFile", &f.file}, {"VmHWM", &f.hwm}} {
		if *v.into, err = statusBytes(pid, v.field); err != nil {
			return err
		}
	}
	return nil
}

// heapProfile saves the proxy's /debug/pprof/heap into dir, and its text
// form (with the runtime's MemStats) beside it.
func (p *realProxy) heapProfile(dir, mode string) error {
	for _, v := range []struct{ query, suffix string }{{"", ".heap"}, {"?debug=1", ".heap.txt"}} {
		resp, err := http.Get("http://" + p.metrics + "/debug/pprof/heap" + v.query)
		if err != nil {
			return err
		}
		f, err := os.Create(filepath.Join(dir, "proxy-"+mode+v.suffix))
		if err == nil {
			_, err = io.Copy(f, resp.Body)
			f.Close()
		}
		resp.Body.Close()
		if err != nil {
			return err
		}
	}
	return nil
}

// realProxyMode measures one mode: proxy start to its first full sync,
// then (after the syncs settle, RSS read) one endpoint change and one
// new Service, then cleans up after it (`svcplane proxy --cleanup`, the
// new Service deleted) unless it is the last mode (the namespace goes
// away; the iptables cleanup of 5,000 Services takes minutes). idx makes
// the moved address unique per mode.
func realProxyMode(out io.Writer, prog *progress, srv *server, client kubernetes.Interface, cfg ProxyConfig, mode string, idx int, last bool) (realFigures, error) {
	f := realFigures{mode: mode}
	if mode == "iptables" && cfg.IPTablesVariant != "" {
		f.mode = "iptables (" + cfg.IPTablesVariant + ")"
	}
	prog.phase(f.mode+": proxy start to first full sync", nil)
	start := time.Now()
	p, err := startRealProxy(srv.dir, mode, cfg)
	if err != nil {
		return f, err
	}
	defer func() {
		p.stop(cfg.KeepLog)
		if !last {
			prog.phase(f.mode+": svcplane proxy --cleanup", nil)
			_ = cleanupProxy()
		}
	}()
	var startProfile chan error
	for {
		c, err := scrapeSyncs(p.metrics)
		if err == nil && cfg.CPUProfileDir != "" && startProfile == nil {
			// The metrics server is up before the informers list: profile
			// the start (list, first full sync).
			startProfile = make(chan error, 1)
			go func() { startProfile <- p.cpuProfile(cfg.CPUProfileDir, mode+"-start", 10*time.Second) }()
		}
		if err == nil && c.fullCount > 0 {
			f.start, f.fullCount = time.Since(start), c.fullCount
			f.full = time.Duration(c.fullSum / float64(c.fullCount) * float64(time.Second))
			break
		}
		if time.Since(start) > syncTimeout {
			return f, fmt.Errorf("no full sync within %s (log: %s): %v", syncTimeout, p.log.Name(), err)
		}
		time.Sleep(scrapeInterval)
	}
	if startProfile != nil {
		if err := <-startProfile; err != nil {
			return f, err
		}
	}
	prog.phase(f.mode+": settling after the full sync", nil)
	base, err := p.waitQuiet()
	if err != nil {
		return f, err
	}
	if cfg.HeapProfileDir != "" {
		if err := p.heapProfile(cfg.HeapProfileDir, mode); err != nil {
			return f, err
		}
	}
	var profile chan error
	if cfg.CPUProfileDir != "" {
		profile = make(chan error, 1)
		go func() { profile <- p.cpuProfile(cfg.CPUProfileDir, mode, time.Duration(cfg.Repeat)*6*time.Second) }()
	}
	for r := range cfg.Repeat {
		prog.phase(fmt.Sprintf("%s: one endpoint change (%d of %d)", f.mode, r+1, cfg.Repeat), nil)
		c, next, err := moveRealEndpoint(client, p, base, fmt.Sprintf("10.200.%d.%d", idx, r+1))
		if err != nil {
			return f, err
		}
		f.changes, base = append(f.changes, c), next
	}
	for r := range cfg.Repeat {
		prog.phase(fmt.Sprintf("%s: one new Service (%d of %d)", f.mode, r+1, cfg.Repeat), nil)
		c, err := addRealService(client, p, cfg)
		if err != nil {
			return f, err
		}
		f.newSvcs = append(f.newSvcs, c)
		if err := deleteRealService(client, cfg.Services); err != nil {
			return f, err
		}
		if base, err = p.waitSyncs(c.after); err != nil {
			return f, err
		}
	}
	if err := p.readRSS(&f); err != nil {
		return f, err
	}
	if profile != nil {
		if err := <-profile; err != nil {
			return f, err
		}
	}
	fmt.Fprintf(out, "%s: proxy start to first full sync %.2fs; full sync %.3fs (%d full by then)\n  one endpoint change: %s\n  one new Service: %s\n  RSS %.1f MB (anon %.1f, file %.1f, peak %.1f)\n",
		f.mode, f.start.Seconds(), f.full.Seconds(), f.fullCount, costList(f.changes), costList(f.newSvcs),
		mb(f.rss), mb(f.anon), mb(f.file), mb(f.hwm))
	return f, nil
}

// moveRealEndpoint moves svc-0's first endpoint to addr and returns the
// syncs it caused.
func moveRealEndpoint(client kubernetes.Interface, p *realProxy, base syncCounts, addr string) (syncCost, syncCounts, error) {
	ctx := context.Background()
	es, err := client.DiscoveryV1().EndpointSlices(realBenchNamespace).Get(ctx, "svc-0-1", metav1.GetOptions{})
	if err != nil {
		return syncCost{}, base, err
	}
	es.Endpoints[0].Addresses = []string{addr}
	write := time.Now()
	if _, err := client.DiscoveryV1().EndpointSlices(realBenchNamespace).Update(ctx, es, metav1.UpdateOptions{}); err != nil {
		return syncCost{}, base, err
	}
	after, err := p.waitSyncs(base)
	if err != nil {
		return syncCost{}, base, err
	}
	n, _, d := after.since(base)
	return syncCost{n: n, d: d, after: after, sinceWrite: after.lastSyncTime().Sub(write)}, after, nil
}

// cpuProfile saves the proxy's /debug/pprof/profile over d into dir.
func (p *realProxy) cpuProfile(dir, mode string, d time.Duration) error {
	resp, err := http.Get(fmt.Sprintf("http://%s/debug/pprof/profile?seconds=%d", p.metrics, int(d.Seconds())))
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	f, err := os.Create(filepath.Join(dir, "proxy-"+mode+".cpu"))
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = io.Copy(f, resp.Body)
	return err
}

// waitQuiet waits until no sync followed for settleQuiet and returns the
// counts then.
func (p *realProxy) waitQuiet() (syncCounts, error) {
	cur, err := scrapeSyncs(p.metrics)
	if err != nil {
		return cur, err
	}
	for quietSince := time.Now(); time.Since(quietSince) < settleQuiet; time.Sleep(scrapeInterval) {
		c, err := scrapeSyncs(p.metrics)
		if err != nil {
			return cur, err
		}
		if c.total() != cur.total() {
			cur, quietSince = c, time.Now()
		}
	}
	return cur, nil
}

// syncCost is what one change cost: n syncs of d in all, and the counts
// after them. sinceWrite is from the API write to the end of the last of
// those syncs (the proxy's sync_proxy_rules_last_timestamp_seconds; one
// machine, one clock): the watch, the informer, the runner's
// minSyncPeriod wait, which the sync durations rightly leave out, and
// the syncs.
type syncCost struct {
	n          int
	d          time.Duration
	after      syncCounts
	sinceWrite time.Duration
}

// addRealService adds Service svc-<N> with its endpoints: the
// EndpointSlice first (a slice without its Service programs nothing; its
// sync, if any, is waited out), then the Service, whose syncs are what
// the figure is.
func addRealService(client kubernetes.Interface, p *realProxy, cfg ProxyConfig) (syncCost, error) {
	ctx := context.Background()
	i := cfg.Services
	if _, err := client.DiscoveryV1().EndpointSlices(realBenchNamespace).Create(ctx, benchSlice(i, cfg.Endpoints, cfg.Nodes), metav1.CreateOptions{}); err != nil {
		return syncCost{}, err
	}
	time.Sleep(settleQuiet)
	base, err := p.waitQuiet()
	if err != nil {
		return syncCost{}, err
	}
	write := time.Now()
	if _, err := client.CoreV1().Services(realBenchNamespace).Create(ctx, benchService(i), metav1.CreateOptions{}); err != nil {
		return syncCost{}, err
	}
	after, err := p.waitSyncs(base)
	if err != nil {
		return syncCost{}, err
	}
	n, _, d := after.since(base)
	return syncCost{n: n, d: d, after: after, sinceWrite: after.lastSyncTime().Sub(write)}, nil
}

// deleteRealService removes what addRealService made, so the next mode
// starts from the same N Services.
func deleteRealService(client kubernetes.Interface, i int) error {
	ctx := context.Background()
	name := fmt.Sprintf("svc-%d", i)
	if err := client.CoreV1().Services(realBenchNamespace).Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
		return err
	}
	return client.DiscoveryV1().EndpointSlices(realBenchNamespace).Delete(ctx, name+"-1", metav1.DeleteOptions{})
}

// cleanupProxy runs `svcplane proxy --cleanup`, as a user does before
// switching modes.
func cleanupProxy() error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	if b, err := exec.Command(self, "proxy", "--cleanup").CombinedOutput(); err != nil {
		return fmt.Errorf("proxy --cleanup: %v: %s", err, b)
	}
	return nil
}

// printRealTable prints the modes' figures as one table.
func printRealTable(out io.Writer, all []realFigures) {
	fmt.Fprintf(out, "\n(changes: median of the repetitions; in brackets from the API write to the sync's end)\n| mode | full sync | one endpoint change | one new Service | proxy RSS | RssAnon | RssFile |\n|---|---|---|---|---|---|---|\n")
	for _, f := range all {
		fmt.Fprintf(out, "| %s | %.3f s | %.1f ms (%.1f) | %.1f ms (%.1f) | %.1f MB | %.1f MB | %.1f MB |\n",
			f.mode, f.full.Seconds(), ms(medianSync(f.changes)), ms(medianSinceWrite(f.changes)),
			ms(medianSync(f.newSvcs)), ms(medianSinceWrite(f.newSvcs)), mb(f.rss), mb(f.anon), mb(f.file))
	}
}
