package main

import (
	"context"
	"fmt"
	"net/netip"
	"os"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/spf13/pflag"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"
	kubeproxyconfig "k8s.io/kube-proxy/config/v1alpha1"
	"k8s.io/utils/clock"

	"github.com/svcplane/svcplane/internal/proxy"
	"github.com/svcplane/svcplane/internal/proxy/healthcheck"
	"github.com/svcplane/svcplane/internal/proxy/iptables"
	"github.com/svcplane/svcplane/internal/proxy/metrics"
	"github.com/svcplane/svcplane/internal/proxy/runner"
	"github.com/svcplane/svcplane/internal/proxy/tracker"
)

// modeOptions are the settings only the iptables, ipvs and userspace
// modes read.
type modeOptions struct {
	iptablesVariant string
	ipvsScheduler   string
	canaryInterval  time.Duration
}

func addModeFlags(f *pflag.FlagSet, o *proxyOptions) {
	f.StringVar(&o.modes.iptablesVariant, "iptables-variant", "", "iptables and ipvs modes: legacy or nft tools (empty: whatever `iptables` is).")
	f.StringVar(&o.modes.ipvsScheduler, "ipvs-scheduler", "rr", "ipvs and userspace modes: rr, wrr, lc, wlc, lblc, lblcr, sh, dh, sed, nq or mh.")
	f.DurationVar(&o.modes.canaryInterval, "iptables-canary-interval", time.Minute, "iptables mode: how often the canary chains are checked for a flush.")
}

// syncReport is what every backend tells after a sync.
type syncReport struct {
	full      bool
	changes   int
	duration  time.Duration
	prev, cur *proxy.Snapshot
	err       error
}

// modeBackend is a built backend: its sync function and what runs beside
// the sync loop (canary monitor, listeners), if anything.
type modeBackend struct {
	sync       runner.SyncFunc
	background func(ctx context.Context, resync func())
}

// modeConfig is what the iptables, ipvs and userspace backends share of
// the options (parsed here, not through the nftables backend's config, so
// this file does not depend on how that one evolves).
type modeConfig struct {
	clusterCIDRs, nodePortAddresses []netip.Prefix
	nodePortPrimary, masqueradeAll  bool
}

func (o *proxyOptions) modeConfig() (modeConfig, error) {
	cfg := modeConfig{masqueradeAll: o.masqueradeAll}
	for _, s := range strings.Split(o.clusterCIDR, ",") {
		if s = strings.TrimSpace(s); s == "" {
			continue
		}
		p, err := netip.ParsePrefix(s)
		if err != nil {
			return cfg, fmt.Errorf("--cluster-cidr: %w", err)
		}
		if proxy.FamilyOf(p.Addr()) == proxy.IPv4 {
			cfg.clusterCIDRs = append(cfg.clusterCIDRs, p.Masked())
		}
	}
	for _, s := range o.nodePortAddresses {
		if s == "primary" {
			cfg.nodePortPrimary = true
			continue
		}
		p, err := netip.ParsePrefix(s)
		if err != nil {
			return cfg, fmt.Errorf("--nodeport-addresses: %w", err)
		}
		if proxy.FamilyOf(p.Addr()) == proxy.IPv4 {
			cfg.nodePortAddresses = append(cfg.nodePortAddresses, p.Masked())
		}
	}
	return cfg, nil
}

// observe records a sync in kube-proxy's metrics.
func observe(m *metrics.Metrics, r syncReport) {
	secs := r.duration.Seconds()
	m.SyncProxyRulesLatency.Observe(secs)
	if r.full {
		m.SyncFullProxyRulesLatency.Observe(secs)
	} else {
		m.SyncPartialProxyRulesLatency.Observe(secs)
	}
	m.SyncProxyRulesLastTimestamp.SetToCurrentTime()
	m.SyncProxyRulesChanges.Add(float64(r.changes))
}

type backendFactory func(cfg modeConfig, state func() *proxy.Snapshot, report func(syncReport)) (modeBackend, error)

// runProxyMode runs the iptables, ipvs or userspace mode.
func runProxyMode(ctx context.Context, o *proxyOptions, client kubernetes.Interface) error {
	var build backendFactory
	switch o.mode {
	case "iptables":
		build = o.iptablesBackend
	case "ipvs":
		build = o.ipvsBackend
	case "userspace":
		build = o.userspaceBackend
	default:
		return fmt.Errorf("proxy mode %q: want nftables, iptables, ipvs or userspace", o.mode)
	}
	return runWithBackend(ctx, o, client, build)
}

// runWithBackend is runProxy's loop around any backend.
func runWithBackend(ctx context.Context, o *proxyOptions, client kubernetes.Interface, build backendFactory) error {
	cfg, err := o.modeConfig()
	if err != nil {
		return err
	}
	nodeName, err := o.proxyNodeName()
	if err != nil {
		return err
	}
	reg := prometheus.NewRegistry()
	m := metrics.New(reg)
	health := healthcheck.NewProxyHealth(clock.RealClock{}, 2*o.sync)
	var run *runner.BoundedFrequencyRunner
	tr := tracker.New(proxy.IPv4, nodeName, func() {
		health.QueuedUpdate(proxy.IPv4)
		if run != nil {
			run.Run()
		}
	})
	b, err := build(cfg, tr.NextSnapshot, func(r syncReport) {
		if r.err != nil {
			klog.ErrorS(r.err, "Sync failed; retrying with a full sync")
			return
		}
		observe(m, r)
		health.SyncNode(r.cur.Node)
		health.Updated(proxy.IPv4)
	})
	if err != nil {
		return err
	}
	run = runner.New(b.sync, o.minSync, o.sync, o.minSync, clock.RealClock{})
	serve(ctx, o.healthzAddr, health.Handler())
	serve(ctx, o.metricsAddr, promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	if err := tr.Start(ctx, client, tracker.Options{WatchServiceCIDRs: true}); err != nil {
		return err
	}
	if b.background != nil {
		go b.background(ctx, run.Run)
	}
	klog.InfoS("Proxy started", "node", nodeName, "mode", o.mode)
	run.Loop(ctx)
	return nil
}

func iptablesConfig(cfg modeConfig) iptables.Config {
	return iptables.Config{Family: proxy.IPv4, ClusterCIDRs: cfg.clusterCIDRs, MasqueradeAll: cfg.masqueradeAll,
		NodePortAddresses: cfg.nodePortAddresses, NodePortPrimary: cfg.nodePortPrimary}
}

func (o *proxyOptions) iptablesBackend(cfg modeConfig, state func() *proxy.Snapshot, report func(syncReport)) (modeBackend, error) {
	ipt, err := iptables.New(proxy.IPv4, iptables.Variant(o.modes.iptablesVariant))
	if err != nil {
		return modeBackend{}, err
	}
	p := iptables.NewProxier(iptablesConfig(cfg), ipt, state, nil)
	ct := o.deps.ct()
	p.OnSynced = func(res iptables.SyncResult, prev, cur *proxy.Snapshot, err error) {
		if err == nil {
			cleanStaleUDP(ct, res.Full, cur)
		}
		report(syncReport{full: res.Full, changes: res.Changes, duration: res.Duration, prev: prev, cur: cur, err: err})
	}
	klog.InfoS("Using iptables mode", "variant", ipt.Variant())
	return modeBackend{sync: p.SyncProxyRules, background: func(ctx context.Context, resync func()) {
		iptables.Monitor(ctx, clock.RealClock{}, o.modes.canaryInterval, p, resync)
	}}, nil
}

// cleanupOtherModes removes what the iptables, ipvs and userspace modes
// install, for every iptables variant present.
func cleanupOtherModes(ctx context.Context) error {
	var errs []error
	for _, v := range []iptables.Variant{iptables.VariantLegacy, iptables.VariantNFT} {
		for _, fam := range []proxy.IPFamily{proxy.IPv4, proxy.IPv6} {
			if v == iptables.VariantLegacy && !legacyTablesLoaded(fam) {
				continue // reading them would load the legacy tables
			}
			ipt, err := iptables.New(fam, v)
			if err != nil {
				continue // variant not installed
			}
			if err := iptables.Cleanup(ctx, ipt); err != nil {
				errs = append(errs, fmt.Errorf("%s %s: %w", v, ipt.Variant(), err))
			}
		}
	}
	errs = append(errs, cleanupIPVSAndUserspace(ctx)...)
	return joinErrs(errs)
}

// fromConfig reads the mode-specific parts of a KubeProxyConfiguration:
// the iptables or ipvs sync periods (instead of the nftables ones), the
// IPVS scheduler and masqueradeAll.
func (m *modeOptions) fromConfig(o *proxyOptions, c *kubeproxyconfig.KubeProxyConfiguration, set func(string, func())) {
	set("ipvs-scheduler", func() { m.ipvsScheduler = nonEmpty(c.IPVS.Scheduler, m.ipvsScheduler) })
	var minSync, sync time.Duration
	var masqAll bool
	switch o.mode {
	case "iptables":
		minSync, sync, masqAll = c.IPTables.MinSyncPeriod.Duration, c.IPTables.SyncPeriod.Duration, c.IPTables.MasqueradeAll
	case "ipvs":
		minSync, sync, masqAll = c.IPVS.MinSyncPeriod.Duration, c.IPVS.SyncPeriod.Duration, c.IPTables.MasqueradeAll
	default:
		return
	}
	set("min-sync-period", func() { o.minSync = nonZero(minSync, o.minSync) })
	set("sync-period", func() { o.sync = nonZero(sync, o.sync) })
	set("masquerade-all", func() { o.masqueradeAll = o.masqueradeAll || masqAll })
}

// legacyTablesLoaded reports whether any legacy (x_tables) table of the
// family exists in this network namespace.
func legacyTablesLoaded(fam proxy.IPFamily) bool {
	path := "/proc/net/ip_tables_names"
	if fam == proxy.IPv6 {
		path = "/proc/net/ip6_tables_names"
	}
	b, err := os.ReadFile(path)
	return err == nil && len(strings.TrimSpace(string(b))) > 0
}
