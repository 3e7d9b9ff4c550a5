package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
	"sigs.k8s.io/knftables"

	"github.com/svcplane/svcplane/internal/proxy"
	"github.com/svcplane/svcplane/internal/proxy/conntrack"
	"github.com/svcplane/svcplane/internal/proxy/healthcheck"
	"github.com/svcplane/svcplane/internal/proxy/iptables"
	"github.com/svcplane/svcplane/internal/proxy/ipvs"
	"github.com/svcplane/svcplane/internal/proxy/metrics"
	"github.com/svcplane/svcplane/internal/proxy/nftables"
	"github.com/svcplane/svcplane/internal/proxy/runner"
	"github.com/svcplane/svcplane/internal/proxy/tracker"
)

// proxyDeps are the proxy's kernel interfaces; nil fields mean the real
// ones.
type proxyDeps struct {
	nft      func(proxy.IPFamily) (knftables.Interface, error)
	iptables func(proxy.IPFamily, iptables.Variant) (iptables.Interface, error)
	// ipvs tells whether the kernel and tools can run the ipvs mode.
	ipvs      func() error
	conntrack conntrack.Interface
	// synced, when set, is called after each successful sync.
	synced func(proxy.IPFamily, *proxy.Snapshot)
}

func (d proxyDeps) newNFT(fam proxy.IPFamily) (knftables.Interface, error) {
	if d.nft != nil {
		return d.nft(fam)
	}
	return nftables.NewInterface(fam)
}

func (d proxyDeps) newIPTables(fam proxy.IPFamily, v iptables.Variant) (iptables.Interface, error) {
	if d.iptables != nil {
		return d.iptables(fam, v)
	}
	return iptables.New(fam, v)
}

// ipvsSupport is nil when the ipvs mode can run: kernel IPVS and the ipset
// tool.
func (d proxyDeps) ipvsSupport() error {
	if d.ipvs != nil {
		return d.ipvs()
	}
	if err := ipvs.KernelSupport(); err != nil {
		return err
	}
	if _, err := exec.LookPath("ipset"); err != nil {
		return fmt.Errorf("the ipvs mode needs the ipset tool: %w", err)
	}
	return nil
}

func (d proxyDeps) ct() conntrack.Interface {
	if d.conntrack != nil {
		return d.conntrack
	}
	return conntrack.New()
}

// runProxy runs the proxy with the client from --kubeconfig (or the
// in-cluster config) until ctx ends.
func runProxy(ctx context.Context, o *proxyOptions) error {
	rc, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(
		&clientcmd.ClientConfigLoadingRules{ExplicitPath: o.kubeconfig}, &clientcmd.ConfigOverrides{}).ClientConfig()
	if err != nil {
		return err
	}
	return runProxyForConfig(ctx, o, rc)
}

// runProxyForConfig runs the proxy against the API server of rc until ctx
// ends. `svcplane up` calls it in-process for the local node with
// newProxyOptions() (hostname set to the node's name).
func runProxyForConfig(ctx context.Context, o *proxyOptions, rc *rest.Config) error {
	client, err := kubernetes.NewForConfig(rc)
	if err != nil {
		return err
	}
	return runProxyWithClient(ctx, o, client)
}

// proxyNodeName is --hostname-override or the host name, lower-cased.
func (o *proxyOptions) proxyNodeName() (string, error) {
	name := o.hostname
	if name == "" {
		var err error
		if name, err = os.Hostname(); err != nil {
			return "", err
		}
	}
	return strings.ToLower(strings.TrimSpace(name)), nil
}

// familyReport is what a family's backend tells after each sync.
type familyReport struct {
	full     bool
	changes  int
	duration time.Duration
	cur      *proxy.Snapshot
	err      error
}

// familyBackend is one IP family's built backend: its sync function, what
// runs beside the sync loop (canary monitor, listeners), and whether UDP
// conntrack entries to gone endpoints must be deleted after its syncs (the
// kernel modes; the userspace mode's flows end at its own sockets).
type familyBackend struct {
	sync       runner.SyncFunc
	background func(ctx context.Context, resync func())
	cleansUDP  bool
}

// backendFactory builds one family's backend of a mode: state gives the
// family's next snapshot, report must be called after every sync.
type backendFactory func(fam proxy.IPFamily, cfg modeConfig, state func() *proxy.Snapshot, report func(familyReport)) (familyBackend, error)

// runProxyWithClient runs one backend of the mode per IP family the
// cluster uses (the second family is dropped, with a log, when its
// backend can't be built), fed by one set of informers, each synced by its
// own bounded-frequency runner, with health, metrics, per-Service health
// checks and UDP conntrack cleanup.
func runProxyWithClient(ctx context.Context, o *proxyOptions, client kubernetes.Interface) error {
	// Ends the health and metrics servers and the backends' background
	// work when this returns early, not only when the caller's ctx ends.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	build, err := o.backendFactory()
	if err != nil {
		return err
	}
	nodeName, err := o.proxyNodeName()
	if err != nil {
		return err
	}
	families, err := o.proxyFamilies(ctx, client, nodeName)
	if err != nil {
		return err
	}
	reg := prometheus.NewRegistry()
	m := metrics.New(reg)
	health := healthcheck.NewProxyHealth(clock.RealClock{}, 2*o.sync)
	health.OnRequest = func(path string, code int) { m.ObserveHealthRequest(path, healthcheck.CodeLabel(code)) }
	svcHealth := newServiceHealth(healthcheck.NewServiceHealthServer(nil, health.IsHealthy, nil))
	noLocal := &noLocalGauge{m: m, counts: map[proxy.IPFamily][2]int{}}
	defer svcHealth.server.Close()
	ct := o.deps.ct()

	var trackers []*tracker.Tracker
	var runners []*runner.BoundedFrequencyRunner
	var backends []familyBackend
	for i, fam := range families {
		var run *runner.BoundedFrequencyRunner
		tr := tracker.New(fam, nodeName, func() {
			health.QueuedUpdate(fam)
			if run != nil {
				run.Run()
			}
		})
		cfg, err := o.modeConfig(fam)
		if err != nil {
			return err
		}
		var cleansUDP bool
		b, err := build(fam, cfg, tr.NextSnapshot, func(r familyReport) {
			if r.err != nil {
				klog.ErrorS(r.err, "Sync failed; retrying with a full sync", "family", fam)
				return
			}
			now := time.Now()
			m.ObserveSync(r.full, r.duration, r.changes, now)
			m.ObserveNetworkProgramming(r.cur.LastChangeTriggerTimes, now)
			health.SyncNode(r.cur.Node)
			health.Updated(fam)
			svcHealth.update(fam, r.cur)
			internal, external := countNoLocalEndpoints(r.cur)
			noLocal.set(fam, internal, external)
			if cleansUDP {
				cleanStaleUDP(ct, r.full, r.cur)
			}
			if o.deps.synced != nil {
				o.deps.synced(fam, r.cur)
			}
		})
		if err != nil && i > 0 {
			klog.ErrorS(err, "Running single-stack", "family", families[0], "mode", o.mode)
			break
		} else if err != nil {
			return err
		}
		cleansUDP = b.cleansUDP
		// One runner per family: a family whose syncs fail retries on its
		// own without forcing full syncs on the other.
		run = runner.New(b.sync, o.minSync, o.sync, o.minSync, clock.RealClock{})
		trackers, runners, backends = append(trackers, tr), append(runners, run), append(backends, b)
	}
	serve(ctx, o.healthzAddr, health.Handler())
	serve(ctx, o.metricsAddr, promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	if err := tracker.StartAll(ctx, client, tracker.Options{WatchServiceCIDRs: true}, trackers...); err != nil {
		return err
	}
	klog.InfoS("Proxy started", "node", nodeName, "mode", o.mode, "families", families[:len(runners)])
	var wg sync.WaitGroup
	for i, run := range runners {
		if bg := backends[i].background; bg != nil {
			wg.Add(1)
			go func() { defer wg.Done(); bg(ctx, run.Run) }()
		}
		wg.Add(1)
		go func() { defer wg.Done(); run.Loop(ctx) }()
	}
	wg.Wait()
	return nil
}

// nftablesBackend builds one family's nftables Proxier.
func (o *proxyOptions) nftablesBackend(fam proxy.IPFamily, cfg modeConfig, state func() *proxy.Snapshot, report func(familyReport)) (familyBackend, error) {
	nft, err := o.deps.newNFT(fam)
	if err != nil {
		return familyBackend{}, fmt.Errorf("nftables for IPv%d: %w", fam, err)
	}
	p := nftables.NewProxier(cfg, nft, state)
	p.OnSynced = func(res nftables.SyncResult, _, cur *proxy.Snapshot, err error) {
		report(familyReport{full: res.Full, changes: res.Changes, duration: res.Duration, cur: cur, err: err})
	}
	return familyBackend{sync: p.SyncProxyRules, cleansUDP: true}, nil
}

// proxyFamilies: both families when the cluster CIDRs or the Node's
// addresses span both (dual-stack: one Proxier each); otherwise the
// family of the node's primary address; IPv4 when nothing tells.
func (o *proxyOptions) proxyFamilies(ctx context.Context, client kubernetes.Interface, nodeName string) ([]proxy.IPFamily, error) {
	cidrs, err := o.clusterCIDRs()
	if err != nil {
		return nil, err
	}
	var addrs []string
	for _, p := range cidrs {
		addrs = append(addrs, p.Addr().String())
	}
	getCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if node, err := client.CoreV1().Nodes().Get(getCtx, nodeName, metav1.GetOptions{}); err == nil {
		for _, a := range node.Status.Addresses {
			addrs = append(addrs, a.Address)
		}
	} else {
		klog.InfoS("Cannot read the node to detect its IP families", "node", nodeName, "err", err)
	}
	return familiesOf(addrs), nil
}

// familiesOf returns the families of the parseable addresses, the first
// one's family first; [IPv4] when there are none.
func familiesOf(addrs []string) []proxy.IPFamily {
	var out []proxy.IPFamily
	for _, s := range addrs {
		ip := net.ParseIP(s)
		if ip == nil {
			continue
		}
		f := proxy.IPv6
		if ip.To4() != nil {
			f = proxy.IPv4
		}
		if len(out) == 0 || (len(out) == 1 && out[0] != f) {
			out = append(out, f)
		}
	}
	if len(out) == 0 {
		return []proxy.IPFamily{proxy.IPv4}
	}
	return out
}

// serviceHealth merges the families' health-checked Services into the
// one per-Service health server.
type serviceHealth struct {
	server    *healthcheck.ServiceHealthServer
	mu        sync.Mutex
	services  map[proxy.IPFamily]map[healthcheck.ServiceName]uint16
	endpoints map[proxy.IPFamily]map[healthcheck.ServiceName]int
}

func newServiceHealth(s *healthcheck.ServiceHealthServer) *serviceHealth {
	return &serviceHealth{server: s, services: map[proxy.IPFamily]map[healthcheck.ServiceName]uint16{},
		endpoints: map[proxy.IPFamily]map[healthcheck.ServiceName]int{}}
}

func (s *serviceHealth) update(fam proxy.IPFamily, snap *proxy.Snapshot) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.services[fam], s.endpoints[fam] = healthcheck.FromSnapshot(snap)
	services, endpoints := map[healthcheck.ServiceName]uint16{}, map[healthcheck.ServiceName]int{}
	for f := range s.services {
		for n, port := range s.services[f] {
			services[n] = port
		}
		for n, c := range s.endpoints[f] {
			endpoints[n] += c
		}
	}
	_ = s.server.SyncServices(services) // failures are logged and retried next sync
	s.server.SyncEndpoints(endpoints)
}

// countNoLocalEndpoints counts, as kube-proxy does for
// sync_proxy_rules_no_local_endpoints_total, the service ports with
// endpoints somewhere but none here for their Local internal (internal)
// or external (external) traffic policy.
func countNoLocalEndpoints(snap *proxy.Snapshot) (internal, external int) {
	for name, svc := range snap.Services {
		extLocal := svc.ExternalPolicyLocal && svc.ExternallyAccessible()
		if !svc.InternalPolicyLocal && !extLocal {
			continue
		}
		_, local, _, hasAny := proxy.CategorizeEndpoints(snap.Endpoints[name], svc, snap.Node)
		if !hasAny || len(local) > 0 {
			continue
		}
		if svc.InternalPolicyLocal {
			internal++
		}
		if extLocal {
			external++
		}
	}
	return internal, external
}

// noLocalGauge sums the families' counts into the gauge.
type noLocalGauge struct {
	m      *metrics.Metrics
	mu     sync.Mutex
	counts map[proxy.IPFamily][2]int
}

func (g *noLocalGauge) set(fam proxy.IPFamily, internal, external int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.counts[fam] = [2]int{internal, external}
	var sum [2]int
	for _, c := range g.counts {
		sum[0], sum[1] = sum[0]+c[0], sum[1]+c[1]
	}
	g.m.SyncProxyRulesNoLocalEPs.WithLabelValues("internal").Set(float64(sum[0]))
	g.m.SyncProxyRulesNoLocalEPs.WithLabelValues("external").Set(float64(sum[1]))
}

// serve runs an HTTP server on addr until ctx ends ("" = off).
func serve(ctx context.Context, addr string, h http.Handler) {
	if addr == "" {
		return
	}
	if strings.HasPrefix(addr, ":") || !strings.Contains(addr, ":") {
		addr = net.JoinHostPort("0.0.0.0", strings.TrimPrefix(addr, ":"))
	}
	srv := &http.Server{Addr: addr, Handler: h, ReadHeaderTimeout: 5 * time.Second}
	go func() {
		if err := srv.ListenAndServe(); err != nil && !errors.Is(err, http.ErrServerClosed) {
			klog.ErrorS(err, "HTTP server failed", "address", addr)
		}
	}()
	go func() { <-ctx.Done(); _ = srv.Close() }()
}

// cleanStaleUDP deletes the UDP conntrack entries a sync left pointing at
// no serving endpoint: of the changed ports after a partial sync, of all
// after a full one. Failures are logged; the next sync tries again.
func cleanStaleUDP(ct conntrack.Interface, full bool, cur *proxy.Snapshot) {
	var ports map[proxy.ServicePortName]struct{}
	if !full && cur.Changes != nil {
		ports = cur.Changes.Ports
	}
	if n, err := conntrack.CleanStaleEntries(ct, cur, ports); err != nil {
		klog.ErrorS(err, "Deleting stale UDP conntrack entries failed", "family", cur.Family)
	} else if n > 0 {
		klog.V(2).InfoS("Deleted stale UDP conntrack entries", "family", cur.Family, "entries", n)
	}
}
