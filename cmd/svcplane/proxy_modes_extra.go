package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"

	"k8s.io/klog/v2"

	"github.com/svcplane/svcplane/internal/proxy"
	"github.com/svcplane/svcplane/internal/proxy/iptables"
	"github.com/svcplane/svcplane/internal/proxy/ipvs"
	"github.com/svcplane/svcplane/internal/proxy/userspace"
)

// ipvsBackend runs the IPVS mode, or the iptables mode when the kernel
// has no IPVS (or ipset is missing), as upstream kube-proxy falls back.
func (o *proxyOptions) ipvsBackend(cfg modeConfig, state func() *proxy.Snapshot, report func(syncReport)) (modeBackend, error) {
	err := ipvs.KernelSupport()
	if err == nil {
		if _, lerr := exec.LookPath("ipset"); lerr != nil {
			err = fmt.Errorf("the ipvs mode needs the ipset tool: %w", lerr)
		}
	}
	if err != nil {
		klog.InfoS("Can't use the IPVS proxier, falling back to the iptables mode", "reason", err.Error())
		o.mode = "iptables"
		return o.iptablesBackend(cfg, state, report)
	}
	h, err := ipvs.NewHandle()
	if err != nil {
		return modeBackend{}, err
	}
	if err := ipvs.SetSysctls(func(path, value string) error {
		return os.WriteFile("/proc/sys/"+path, []byte(value), 0o644)
	}); err != nil {
		return modeBackend{}, fmt.Errorf("ipvs sysctls: %w", err)
	}
	ipt, err := iptables.New(proxy.IPv4, iptables.Variant(o.modes.iptablesVariant))
	if err != nil {
		return modeBackend{}, err
	}
	p, err := ipvs.NewProxier(ipvs.Config{Family: proxy.IPv4, Scheduler: o.modes.ipvsScheduler, ClusterCIDRs: cfg.clusterCIDRs,
		MasqueradeAll: cfg.masqueradeAll, NodePortAddresses: cfg.nodePortAddresses},
		h, ipvs.IPSetCLI{}, ipvs.IPCommand{}, ipt, state, nil)
	if err != nil {
		return modeBackend{}, err
	}
	ct := o.deps.ct()
	p.OnSynced = func(res ipvs.SyncResult, prev, cur *proxy.Snapshot, err error) {
		if err == nil {
			cleanStaleUDP(ct, res.Full, cur)
		}
		report(syncReport{full: res.Full, changes: res.Changes, duration: res.Duration, prev: prev, cur: cur, err: err})
	}
	klog.InfoS("Using the IPVS mode", "scheduler", o.modes.ipvsScheduler)
	return modeBackend{sync: p.SyncProxyRules}, nil
}

func (o *proxyOptions) userspaceBackend(_ modeConfig, state func() *proxy.Snapshot, report func(syncReport)) (modeBackend, error) {
	nft, err := userspace.NewNFT(proxy.IPv4)
	if err != nil {
		return modeBackend{}, err
	}
	p, err := userspace.NewProxier(userspace.Config{Family: proxy.IPv4, Scheduler: o.modes.ipvsScheduler}, userspace.NewRedirector(nft), state, nil)
	if err != nil {
		return modeBackend{}, err
	}
	p.OnSynced = func(res userspace.SyncResult, prev, cur *proxy.Snapshot, err error) {
		report(syncReport{full: res.Full, changes: res.Portals, duration: res.Duration, prev: prev, cur: cur, err: err})
	}
	return modeBackend{sync: p.SyncProxyRules, background: func(ctx context.Context, _ func()) {
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
