package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"

	"k8s.io/klog/v2"

	"github.com/svcplane/svcplane/internal/proxy"
	"github.com/svcplane/svcplane/internal/proxy/iptables"
	"github.com/svcplane/svcplane/internal/proxy/ipvs"
	"github.com/svcplane/svcplane/internal/proxy/userspace"
)

// sharedIPVS is the one netlink handle both families' IPVS proxiers use
// (it serializes their calls), opened with the sysctls set on first use.
type sharedIPVS struct {
	once sync.Once
	h    ipvs.Handle
	err  error
}

func (s *sharedIPVS) get() (ipvs.Handle, error) {
	s.once.Do(func() {
		if s.err = setIPVSSysctls(); s.err == nil {
			s.h, s.err = ipvs.NewHandle()
		}
	})
	return s.h, s.err
}

func setIPVSSysctls() error {
	if err := ipvs.SetSysctls(func(path, value string) error {
		return os.WriteFile("/proc/sys/"+path, []byte(value), 0o644)
	}); err != nil {
		return fmt.Errorf("ipvs sysctls: %w", err)
	}
	return nil
}

// ipvsBackend builds one family's IPVS Proxier (backendFactory has
// checked that the kernel has IPVS).
func (o *proxyOptions) ipvsBackend(fam proxy.IPFamily, cfg modeConfig, state func() *proxy.Snapshot, report func(familyReport)) (familyBackend, error) {
	h, err := o.modes.ipvs.get()
	if err != nil {
		return familyBackend{}, err
	}
	ipt, err := o.deps.newIPTables(fam, iptables.Variant(o.modes.iptablesVariant))
	if err != nil {
		return familyBackend{}, err
	}
	p, err := ipvs.NewProxier(ipvs.Config{Family: fam, Scheduler: o.modes.ipvsScheduler, ClusterCIDRs: cfg.ClusterCIDRs,
		MasqueradeAll: cfg.MasqueradeAll, NodePortAddresses: cfg.NodePortAddresses},
		h, ipvs.IPSetCLI{}, ipvs.IPCommand{}, ipt, state, nil)
	if err != nil {
		return familyBackend{}, err
	}
	p.OnSynced = func(res ipvs.SyncResult, _, cur *proxy.Snapshot, err error) {
		report(familyReport{full: res.Full, changes: res.Changes, duration: res.Duration, cur: cur, err: err})
	}
	klog.InfoS("Using the IPVS mode", "family", fam, "scheduler", o.modes.ipvsScheduler)
	return familyBackend{sync: p.SyncProxyRules, cleansUDP: true, background: func(ctx context.Context, _ func()) {
		p.RunGracefulTermination(ctx)
	}}, nil
}

// userspaceBackend builds one family's userspace Proxier.
func (o *proxyOptions) userspaceBackend(fam proxy.IPFamily, _ modeConfig, state func() *proxy.Snapshot, report func(familyReport)) (familyBackend, error) {
	nft, err := userspace.NewNFT(fam)
	if err != nil {
		return familyBackend{}, err
	}
	p, err := userspace.NewProxier(userspace.Config{Family: fam, Scheduler: o.modes.ipvsScheduler}, userspace.NewRedirector(nft), state, nil)
	if err != nil {
		return familyBackend{}, err
	}
	p.OnSynced = func(res userspace.SyncResult, _, cur *proxy.Snapshot, err error) {
		report(familyReport{full: res.Full, changes: res.Portals, duration: res.Duration, cur: cur, err: err})
	}
	return familyBackend{sync: p.SyncProxyRules, background: func(ctx context.Context, _ func()) {
		<-ctx.Done()
		p.Close()
	}}, nil
}

// cleanupIPVSAndUserspace runs after the KUBE-* chains are gone (they
// reference the ipsets).
func cleanupIPVSAndUserspace(ctx context.Context) []error {
	var errs []error
	var h ipvs.Handle
	if ipvs.KernelSupport() == nil {
		h, _ = ipvs.NewHandle()
	}
	errs = append(errs, ipvs.Cleanup(ctx, h, ipvs.IPSetCLI{}, ipvs.IPCommand{}))
	for _, fam := range []proxy.IPFamily{proxy.IPv4, proxy.IPv6} {
		if nft, err := userspace.NewNFT(fam); err == nil {
			errs = append(errs, userspace.Cleanup(ctx, nft))
		}
	}
	return errs
}

func joinErrs(errs []error) error { return errors.Join(errs...) }
