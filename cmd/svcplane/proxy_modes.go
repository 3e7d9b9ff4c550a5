package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/pflag"
	"k8s.io/klog/v2"
	kubeproxyconfig "k8s.io/kube-proxy/config/v1alpha1"
	"k8s.io/utils/clock"

	"github.com/svcplane/svcplane/internal/proxy"
	"github.com/svcplane/svcplane/internal/proxy/iptables"
)

// modeOptions are the settings only the iptables, ipvs and userspace
// modes read.
type modeOptions struct {
	iptablesVariant string
	ipvsScheduler   string
	canaryInterval  time.Duration
	ipvs            *sharedIPVS
}

func addModeFlags(f *pflag.FlagSet, o *proxyOptions) {
	f.StringVar(&o.modes.iptablesVariant, "iptables-variant", "", "iptables and ipvs modes: legacy or nft tools (empty: whatever `iptables` is).")
	f.StringVar(&o.modes.ipvsScheduler, "ipvs-scheduler", o.modes.ipvsScheduler, "ipvs and userspace modes: rr, wrr, lc, wlc, lblc, lblcr, sh, dh, sed, nq or mh.")
	f.DurationVar(&o.modes.canaryInterval, "iptables-canary-interval", o.modes.canaryInterval, "iptables mode: how often the canary chains are checked for a flush.")
}

// modeConfig is one family's settings every mode reads (the nftables and
// iptables backends' Config).
type modeConfig = proxy.RulesConfig

// backendFactory picks the mode's backend. The ipvs mode falls back to the
// iptables mode, once for all families, when the kernel has no IPVS.
func (o *proxyOptions) backendFactory() (backendFactory, error) {
	switch o.mode {
	case "", "nftables":
		o.mode = "nftables"
		return o.nftablesBackend, nil
	case "iptables":
		return o.iptablesBackend, nil
	case "ipvs":
		o.modes.ipvs = &sharedIPVS{}
		if err := o.deps.ipvsSupport(); err != nil {
			klog.InfoS("Can't use the IPVS proxier, falling back to the iptables mode", "reason", err.Error())
			o.mode = "iptables"
			return o.iptablesBackend, nil
		}
		return o.ipvsBackend, nil
	case "userspace":
		return o.userspaceBackend, nil
	}
	return nil, fmt.Errorf("proxy mode %q: want nftables, iptables, ipvs or userspace", o.mode)
}

func (o *proxyOptions) iptablesBackend(fam proxy.IPFamily, cfg modeConfig, state func() *proxy.Snapshot, report func(familyReport)) (familyBackend, error) {
	ipt, err := o.deps.newIPTables(fam, iptables.Variant(o.modes.iptablesVariant))
	if err != nil {
		return familyBackend{}, err
	}
	p := iptables.NewProxier(cfg, ipt, state, nil)
	p.OnSynced = func(res iptables.SyncResult, _, cur *proxy.Snapshot, err error) {
		report(familyReport{full: res.Full, changes: res.Changes, duration: res.Duration, cur: cur, err: err})
	}
	klog.InfoS("Using iptables mode", "family", fam, "variant", ipt.Variant())
	return familyBackend{sync: p.SyncProxyRules, cleansUDP: true, background: func(ctx context.Context, resync func()) {
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
