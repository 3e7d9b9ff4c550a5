package app

import (
	"context"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"

	"github.com/svcplane/svcplane/internal/proxy"
	"github.com/svcplane/svcplane/internal/proxy/conntrack"
	"github.com/svcplane/svcplane/internal/proxy/healthcheck"
	"github.com/svcplane/svcplane/internal/proxy/metrics"
	"github.com/svcplane/svcplane/internal/proxy/tracker"
)

// RunForConfig runs the proxy against the API server of rc until ctx
// ends, on the real kernel. `svcplane up` calls it in-process for its
// local node.
func RunForConfig(ctx context.Context, cfg Config, rc *rest.Config) error {
	return RunForConfigWith(ctx, cfg, rc, Deps{})
}

// RunForConfigWith is RunForConfig with deps (nil fields: the real
// kernel); `svcplane proxy` sets deps.Settled.
func RunForConfigWith(ctx context.Context, cfg Config, rc *rest.Config, deps Deps) error {
	client, err := kubernetes.NewForConfig(rc)
	if err != nil {
		return err
	}
	return Run(ctx, cfg, client, deps)
}

// Run runs one backend of the mode per IP family the cluster uses, fed by
// one set of informers, with health, metrics, per-Service health checks
// and UDP conntrack cleanup, until ctx ends.
func Run(ctx context.Context, cfg Config, client kubernetes.Interface, deps Deps) error {
	// Ends the health and metrics servers and the backends' background
	// work when this returns early, not only when the caller's ctx ends.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	deps = deps.withDefaults()
	mode, err := ChooseMode(cfg.Mode, deps.IPVSSupport)
	if err != nil {
		return err
	}
	if cfg.Conntrack != nil {
		if err := conntrack.SetSysctls(deps.SysRoot, *cfg.Conntrack); err != nil {
			return err
		}
	}
	nodeName, err := cfg.NodeName()
	if err != nil {
		return err
	}
	families, err := detectFamilies(ctx, &cfg, client, nodeName)
	if err != nil {
		return err
	}
	obs := newObservers(&cfg, deps)
	defer obs.close()
	stack, err := newDualStack(&cfg, deps, mode, nodeName, families, obs)
	if err != nil {
		return err
	}
	obs.settled = newSettled(stack.families(), deps.Settled)
	serve(ctx, cfg.HealthzBindAddress, obs.health.Handler())
	serve(ctx, cfg.MetricsBindAddress, metricsHandler(obs.reg, mode, cfg.EnableProfiling))
	if err := tracker.StartAll(ctx, client, tracker.Options{WatchServiceCIDRs: true, ResyncPeriod: cfg.ConfigSyncPeriod}, stack.trackers()...); err != nil {
		return err
	}
	klog.InfoS("Proxy started", "node", nodeName, "mode", mode, "families", stack.families())
	stack.run(ctx)
	return nil
}

// observers are what every sync of every family fans out to.
type observers struct {
	reg       *prometheus.Registry
	metrics   *metrics.Metrics
	health    *healthcheck.ProxyHealth
	svcServer *healthcheck.ServiceHealthServer
	svcHealth *serviceHealth
	noLocal   *noLocalGauge
	deps      Deps
	// settled calls deps.Settled after the first sync of every family
	// (set once the families are known, before any sync).
	settled *settled
}

func newObservers(cfg *Config, deps Deps) *observers {
	o := &observers{reg: prometheus.NewRegistry(), deps: deps}
	o.metrics = metrics.New(o.reg)
	o.health = healthcheck.NewProxyHealth(deps.Clock, 2*cfg.SyncPeriod)
	o.health.OnRequest = func(path string, code int) {
		o.metrics.ObserveHealthRequest(path, healthcheck.CodeLabel(code))
	}
	o.svcServer = healthcheck.NewServiceHealthServer(nil, o.health.IsHealthy, nil)
	o.svcHealth = newServiceHealth(o.svcServer)
	o.noLocal = &noLocalGauge{m: o.metrics, counts: map[proxy.IPFamily][2]int{}}
	return o
}

func (o *observers) close() { o.svcServer.Close() }

// synced is the family's sync callback: a failed sync is logged (its
// runner retries with a full sync); a successful one updates the metrics,
// /healthz, the per-Service health servers and the no-local-endpoints
// gauge, then (cleansUDP) deletes stale UDP conntrack entries.
func (o *observers) synced(fam proxy.IPFamily, cleansUDP bool) proxy.SyncedFunc {
	return func(res proxy.SyncResult, _, cur *proxy.Snapshot, err error) {
		if err != nil {
			klog.ErrorS(err, "Sync failed; retrying with a full sync", "family", fam)
			return
		}
		now := o.deps.Clock.Now()
		o.metrics.ObserveSync(res.Full, res.Duration, res.Changes, now)
		o.metrics.ObserveNetworkProgramming(cur.LastChangeTriggerTimes, now)
		o.health.SyncNode(cur.Node)
		o.health.Updated(fam)
		o.svcHealth.update(fam, cur)
		internal, external := countNoLocalEndpoints(cur)
		o.noLocal.set(fam, internal, external)
		if cleansUDP {
			cleanStaleUDP(o.deps.Conntrack, res.Full, cur)
		}
		if o.deps.Synced != nil {
			o.deps.Synced(fam, cur)
		}
		if o.settled != nil {
			o.settled.synced(fam)
		}
	}
}
