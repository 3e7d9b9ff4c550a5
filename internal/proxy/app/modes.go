package app

import (
	"fmt"
	"os"
	"sync"

	"k8s.io/klog/v2"

	"github.com/svcplane/svcplane/internal/proxy"
	"github.com/svcplane/svcplane/internal/proxy/iptables"
	"github.com/svcplane/svcplane/internal/proxy/ipvs"
	"github.com/svcplane/svcplane/internal/proxy/nftables"
	"github.com/svcplane/svcplane/internal/proxy/userspace"
)

// The proxy modes.
const (
	ModeNFTables  = "nftables"
	ModeIPTables  = "iptables"
	ModeIPVS      = "ipvs"
	ModeUserspace = "userspace"
)

// ChooseMode returns the mode that runs for the asked one: "" is
// nftables; ipvs falls back to iptables (logged) when ipvsSupport says
// the kernel or tools can't run it. An unknown mode is an error.
func ChooseMode(mode string, ipvsSupport func() error) (string, error) {
	switch mode {
	case "", ModeNFTables:
		return ModeNFTables, nil
	case ModeIPTables, ModeUserspace:
		return mode, nil
	case ModeIPVS:
		if err := ipvsSupport(); err != nil {
			klog.InfoS("Can't use the IPVS proxier, falling back to the iptables mode", "reason", err.Error())
			return ModeIPTables, nil
		}
		return ModeIPVS, nil
	}
	return "", fmt.Errorf("proxy mode %q: want nftables, iptables, ipvs or userspace", mode)
}

// newBackendFunc builds one family's backend: state gives the family's
// next snapshot, synced is called after every sync.
type newBackendFunc func(fam proxy.IPFamily, rc proxy.RulesConfig, state func() *proxy.Snapshot, synced proxy.SyncedFunc) (proxy.Backend, error)

// builder builds the backends of one mode for every family.
type builder struct {
	cfg  *Config
	deps Deps
	ipvs sharedIPVS
}

// forMode returns the mode's constructor and whether UDP conntrack
// entries to gone endpoints must be deleted after its syncs (the kernel
// modes; the userspace mode's flows end at its own sockets).
func (b *builder) forMode(mode string) (build newBackendFunc, cleansUDP bool) {
	switch mode {
	case ModeIPTables:
		return b.iptables, true
	case ModeIPVS:
		return b.ipvsBackend, true
	case ModeUserspace:
		return b.userspace, false
	}
	return b.nftables, true
}

func (b *builder) nftables(fam proxy.IPFamily, rc proxy.RulesConfig, state func() *proxy.Snapshot, synced proxy.SyncedFunc) (proxy.Backend, error) {
	nft, err := b.deps.NFT(fam)
	if err != nil {
		return nil, fmt.Errorf("nftables for IPv%d: %w", fam, err)
	}
	p := nftables.NewProxier(rc, nft, state)
	p.OnSynced = synced
	return p, nil
}

func (b *builder) iptables(fam proxy.IPFamily, rc proxy.RulesConfig, state func() *proxy.Snapshot, synced proxy.SyncedFunc) (proxy.Backend, error) {
	ipt, err := b.deps.IPTables(fam, iptables.Variant(b.cfg.IPTablesVariant))
	if err != nil {
		return nil, err
	}
	p := iptables.NewProxier(rc, ipt, state, b.deps.Clock)
	p.OnSynced, p.CanaryInterval = synced, b.cfg.CanaryInterval
	klog.InfoS("Using iptables mode", "family", fam, "variant", ipt.Variant())
	return p, nil
}

// ipvsBackend builds one family's IPVS Proxier on the handle both
// families share (ChooseMode has checked that the kernel has IPVS).
func (b *builder) ipvsBackend(fam proxy.IPFamily, rc proxy.RulesConfig, state func() *proxy.Snapshot, synced proxy.SyncedFunc) (proxy.Backend, error) {
	h, err := b.ipvs.get()
	if err != nil {
		return nil, err
	}
	ipt, err := b.deps.IPTables(fam, iptables.Variant(b.cfg.IPTablesVariant))
	if err != nil {
		return nil, err
	}
	p, err := ipvs.NewProxier(ipvs.Config{Family: fam, Scheduler: b.cfg.IPVSScheduler, ClusterCIDRs: rc.ClusterCIDRs,
		MasqueradeAll: rc.MasqueradeAll, NodePortAddresses: rc.NodePortAddresses},
		h, ipvs.IPSetCLI{}, ipvs.NetlinkLinks{}, ipt, state, b.deps.Clock)
	if err != nil {
		return nil, err
	}
	p.OnSynced = synced
	klog.InfoS("Using the IPVS mode", "family", fam, "scheduler", b.cfg.IPVSScheduler)
	return p, nil
}

func (b *builder) userspace(fam proxy.IPFamily, _ proxy.RulesConfig, state func() *proxy.Snapshot, synced proxy.SyncedFunc) (proxy.Backend, error) {
	nft, err := userspace.NewNFT(fam)
	if err != nil {
		return nil, err
	}
	p, err := userspace.NewProxier(userspace.Config{Family: fam, Scheduler: b.cfg.IPVSScheduler}, userspace.NewRedirector(nft, fam).WithNetlink(), state, b.deps.Clock)
	if err != nil {
		return nil, err
	}
	p.OnSynced = synced
	return p, nil
}

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

// Every mode's Proxier is a proxy.Backend.
var (
	_ proxy.Backend = (*nftables.Proxier)(nil)
	_ proxy.Backend = (*iptables.Proxier)(nil)
	_ proxy.Backend = (*ipvs.Proxier)(nil)
	_ proxy.Backend = (*userspace.Proxier)(nil)
)
