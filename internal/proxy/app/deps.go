package app

import (
	"fmt"
	"os/exec"

	"k8s.io/utils/clock"
	"sigs.k8s.io/knftables"

	"github.com/svcplane/svcplane/internal/proxy"
	"github.com/svcplane/svcplane/internal/proxy/conntrack"
	"github.com/svcplane/svcplane/internal/proxy/iptables"
	"github.com/svcplane/svcplane/internal/proxy/ipvs"
	"github.com/svcplane/svcplane/internal/proxy/nftables"
)

// Deps are the proxy's kernel interfaces and clock; nil fields mean the
// real ones.
type Deps struct {
	NFT      func(proxy.IPFamily) (knftables.Interface, error)
	IPTables func(proxy.IPFamily, iptables.Variant) (iptables.Interface, error)
	// IPVSSupport is nil when the ipvs mode can run (kernel IPVS and the
	// ipset tool).
	IPVSSupport func() error
	Conntrack   conntrack.Interface
	Clock       clock.WithTicker
	// SysRoot is where /proc and /sys are ("/" when empty): the conntrack
	// sysctls of Config.Conntrack are written under it.
	SysRoot string
	// Synced, when set, is called after each successful sync.
	Synced func(proxy.IPFamily, *proxy.Snapshot)
	// Settled, when set, is called once, after every family's first
	// successful sync: the standalone proxy then unmaps the executable's
	// pages its start touched (exemem).
	Settled func()
}

// withDefaults fills the nil fields with the real implementations.
func (d Deps) withDefaults() Deps {
	if d.NFT == nil {
		d.NFT = nftables.NewInterface
	}
	if d.IPTables == nil {
		d.IPTables = iptables.New
	}
	if d.IPVSSupport == nil {
		d.IPVSSupport = ipvsSupport
	}
	if d.Conntrack == nil {
		d.Conntrack = conntrack.New()
	}
	if d.Clock == nil {
		d.Clock = clock.RealClock{}
	}
	if d.SysRoot == "" {
		d.SysRoot = "/"
	}
	return d
}

// ipvsSupport is nil when the ipvs mode can run: kernel IPVS and the ipset
// tool.
func ipvsSupport() error {
	if err := ipvs.KernelSupport(); err != nil {
		return err
	}
	if _, err := exec.LookPath("ipset"); err != nil {
		return fmt.Errorf("the ipvs mode needs the ipset tool: %w", err)
	}
	return nil
}
