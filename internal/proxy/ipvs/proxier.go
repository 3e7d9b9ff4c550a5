package ipvs

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"sync"
	"time"

	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	"github.com/svcplane/svcplane/internal/proxy"
	"github.com/svcplane/svcplane/internal/proxy/iptables"
	"github.com/svcplane/svcplane/internal/proxy/scheduler"
)

// Proxier reconciles IPVS, kube-ipvs0, the ipsets and the iptables rules
// with the planned State.
type Proxier struct {
	cfg    Config
	handle Handle
	ipset  IPSet
	links  Links
	ipt    iptables.Interface
	state  func() *proxy.Snapshot
	clock  clock.WithTicker

	mu        sync.Mutex
	installed *State // nil: unknown, the next sync is full
	lastSnap  *proxy.Snapshot
	// draining are the real servers at weight 0 waiting for their
	// connections to end (graceful.go), by drainKey.
	draining  map[string]draining
	lastDrain time.Time
	// afterDrain, when set (tests), runs after each periodic check.
	afterDrain func()
	// OnSynced, when set, is called after each sync.
	OnSynced proxy.SyncedFunc
}

// NewProxier returns a Proxier for cfg.Family (IPv4 when unset);
// cfg.Scheduler must be an IPVS scheduler. ipt must be of the same family
// (iptables.New(cfg.Family, …): ip6tables for IPv6). For dual-stack, make
// one Proxier per family over the same Handle, IPSet and Links: each
// reads and changes only its family's virtual servers, kube-ipvs0
// addresses and sets. clk (nil: the real clock) times syncs and the
// graceful termination checks; run RunGracefulTermination beside the
// sync loop.
func NewProxier(cfg Config, h Handle, set IPSet, links Links, ipt iptables.Interface, state func() *proxy.Snapshot, clk clock.WithTicker) (*Proxier, error) {
	switch cfg.Family {
	case 0:
		cfg.Family = proxy.IPv4
	case proxy.IPv4, proxy.IPv6:
	default:
		return nil, fmt.Errorf("ipvs: IP family %d: want 4 or 6", cfg.Family)
	}
	if cfg.Scheduler == "" {
		cfg.Scheduler = "rr"
	}
	if !slices.Contains(scheduler.Names, cfg.Scheduler) {
		return nil, fmt.Errorf("ipvs scheduler %q: want one of %v", cfg.Scheduler, scheduler.Names)
	}
	if cfg.GracefulTerminationInterval <= 0 {
		cfg.GracefulTerminationInterval = DefaultGracefulTerminationInterval
	}
	if clk == nil {
		clk = clock.RealClock{}
	}
	return &Proxier{cfg: cfg, handle: h, ipset: set, links: links, ipt: ipt, state: state, clock: clk,
		draining: map[string]draining{}, lastDrain: clk.Now()}, nil
}

var jumps = []struct {
	table       iptables.Table
	chain, rule string
}{
	{iptables.TableNAT, "PREROUTING", `-m comment --comment "kubernetes service portals" -j KUBE-SERVICES`},
	{iptables.TableNAT, "OUTPUT", `-m comment --comment "kubernetes service portals" -j KUBE-SERVICES`},
	{iptables.TableNAT, "POSTROUTING", `-m comment --comment "kubernetes postrouting rules" -j KUBE-POSTROUTING`},
	{iptables.TableFilter, "INPUT", `-m conntrack --ctstate NEW -m comment --comment "kubernetes load balancer firewall" -j KUBE-PROXY-FIREWALL`},
	{iptables.TableFilter, "FORWARD", `-m comment --comment "kubernetes forwarding rules" -j KUBE-FORWARD`},
}

// SyncProxyRules installs the current snapshot. A full sync (asked for,
// first, after a failure) reads the kernel's virtual servers and bound
// addresses, rewrites the ipsets and the iptables rules; a partial one
// sends only the differences to what the last sync installed. Real
// servers that are no longer wanted are drained (graceful.go).
func (p *Proxier) SyncProxyRules(full bool) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.drainDue()
	start := p.clock.Now()
	ctx := context.Background()
	snap := p.state()
	desired := Plan(&p.cfg, snap)
	res := proxy.SyncResult{Full: full || p.installed == nil}
	have := p.installed
	var err error
	if res.Full {
		if have, err = p.readKernel(); err == nil {
			err = p.ipset.Restore(ctx, setsRestore(p.cfg.Family, nil, desired.Sets))
		}
		if err == nil {
			err = p.syncIPTables(ctx)
		}
	} else if text := setsRestore(p.cfg.Family, have.Sets, desired.Sets); text != "" {
		err = p.ipset.Restore(ctx, text)
	}
	if err == nil {
		var n int
		n, err = p.syncVirtualServers(have, desired)
		res.Changes += n
	}
	if err == nil {
		var n int
		n, err = p.syncAddresses(have.Addresses, desired.Addresses)
		res.Changes += n
	}
	res.Duration = p.clock.Since(start)
	prev := p.lastSnap
	if err != nil {
		p.installed = nil
		err = fmt.Errorf("ipvs sync (full=%v): %w", res.Full, err)
	} else {
		p.installed, p.lastSnap = desired, snap
	}
	klog.V(2).InfoS("Synced IPVS", "full", res.Full, "changes", res.Changes, "elapsed", res.Duration, "err", err)
	if p.OnSynced != nil {
		p.OnSynced(res, prev, snap, err)
	}
	return err
}

// readKernel lists what is installed in the Proxier's family: virtual
// servers with their real servers, and the addresses of kube-ipvs0
// (created when missing). The other family's virtual servers and
// addresses belong to the other family's Proxier and are left out, as
// are IPv6 link-local and loopback addresses (the kernel's own), as
// upstream's GetLocalAddresses leaves them out.
func (p *Proxier) readKernel() (*State, error) {
	if err := p.links.EnsureDummy(DummyInterface); err != nil {
		return nil, err
	}
	st := &State{Services: map[string]*VirtualServer{}, Reals: map[string][]*RealServer{}, family: p.cfg.Family}
	vss, err := p.handle.GetVirtualServers()
	if err != nil {
		return nil, err
	}
	for _, vs := range vss {
		if proxy.FamilyOf(vs.Address) != p.cfg.Family {
			continue
		}
		st.Services[vs.Key()] = vs
		if st.Reals[vs.Key()], err = p.handle.GetRealServers(vs); err != nil {
			return nil, err
		}
	}
	addrs, err := p.links.Addrs(DummyInterface)
	for _, a := range addrs {
		if proxy.FamilyOf(a) == p.cfg.Family && !a.IsLinkLocalUnicast() && !a.IsLoopback() {
			st.Addresses = append(st.Addresses, a)
		}
	}
	return st, err
}

func (p *Proxier) syncIPTables(ctx context.Context) error {
	if err := p.ipt.Restore(ctx, []byte(iptablesRules(&p.cfg, false))); err != nil {
		return err
	}
	for i := len(jumps) - 1; i >= 0; i-- {
		if err := p.ipt.EnsureRule(ctx, jumps[i].table, jumps[i].chain, jumps[i].rule); err != nil {
			return err
		}
	}
	return nil
}

// syncVirtualServers adds and updates first, then deletes, so a service
// being changed keeps answering.
func (p *Proxier) syncVirtualServers(have, want *State) (int, error) {
	n := 0
	var errs []error
	for _, key := range sortedNames(want.Services) {
		vs, old := want.Services[key], have.Services[key]
		switch {
		case old == nil:
			errs = append(errs, p.handle.AddVirtualServer(vs))
			n++
		case *old != *vs:
			errs = append(errs, p.handle.UpdateVirtualServer(vs))
			n++
		}
		n += p.syncReals(vs, have.Reals[key], want.Reals[key], &errs)
	}
	for _, key := range sortedNames(have.Services) {
		if want.Services[key] == nil {
			errs = append(errs, p.handle.DeleteVirtualServer(have.Services[key]))
			p.forgetDraining(have.Services[key])
			n++
		}
	}
	return n, errors.Join(errs...)
}

// syncReals adds and updates vs's wanted real servers (restoring the
// weight of one being drained) and drains the others (gracefulDelete),
// leaving alone those already draining.
func (p *Proxier) syncReals(vs *VirtualServer, have, want []*RealServer, errs *[]error) int {
	n := 0
	old := map[string]*RealServer{}
	for _, r := range have {
		old[r.Key()] = r
	}
	seen := map[string]bool{}
	for _, r := range want {
		seen[r.Key()] = true
		switch o := old[r.Key()]; {
		case p.undrain(vs, r, errs):
			n++
		case o == nil:
			*errs = append(*errs, p.handle.AddRealServer(vs, r))
			n++
		case o.Weight != r.Weight:
			*errs = append(*errs, p.handle.UpdateRealServer(vs, r))
			n++
		}
	}
	for _, r := range have {
		if seen[r.Key()] {
			continue
		}
		if _, ok := p.draining[drainKey(vs, r)]; ok {
			continue
		}
		c, err := p.gracefulDelete(vs, r)
		*errs = append(*errs, err)
		n += c
	}
	return n
}

// syncAddresses binds want to kube-ipvs0 and unbinds the rest of have
// (set lookups: both lists hold an address per Service).
func (p *Proxier) syncAddresses(have, want []netip.Addr) (int, error) {
	n := 0
	var errs []error
	haveSet, wantSet := addrSet(have), addrSet(want)
	for _, a := range want {
		if _, ok := haveSet[a]; !ok {
			errs = append(errs, p.links.AddAddr(DummyInterface, a))
			n++
		}
	}
	for _, a := range have {
		if _, ok := wantSet[a]; !ok {
			errs = append(errs, p.links.DelAddr(DummyInterface, a))
			n++
		}
	}
	return n, errors.Join(errs...)
}

func addrSet(addrs []netip.Addr) map[netip.Addr]struct{} {
	m := make(map[netip.Addr]struct{}, len(addrs))
	for _, a := range addrs {
		m[a] = struct{}{}
	}
	return m
}

// Cleanup removes the mode's virtual servers of both families (h may be
// nil when the kernel has no IPVS), kube-ipvs0 and the ipsets of both
// families. The KUBE-* chains that use the sets must be gone first
// (iptables.Cleanup for iptables and for ip6tables).
func Cleanup(ctx context.Context, h Handle, set IPSet, links Links) error {
	var errs []error
	if h != nil {
		vss, err := h.GetVirtualServers()
		errs = append(errs, err)
		for _, vs := range vss {
			errs = append(errs, h.DeleteVirtualServer(vs))
		}
	}
	errs = append(errs, links.DeleteLink(DummyInterface))
	for _, family := range []proxy.IPFamily{proxy.IPv4, proxy.IPv6} {
		for _, name := range sortedNames(familySets(family)) {
			// One restore per set: a missing set (an error) must not
			// stop the others.
			_ = set.Restore(ctx, "destroy "+name+"\n")
		}
	}
	return errors.Join(errs...)
}
