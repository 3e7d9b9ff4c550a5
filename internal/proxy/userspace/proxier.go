package userspace

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	"github.com/svcplane/svcplane/internal/proxy"
	"github.com/svcplane/svcplane/internal/proxy/scheduler"
)

// Config is the userspace mode's configuration.
type Config struct {
	// Scheduler is an IPVS scheduler name (default rr).
	Scheduler string
	// DialTimeout bounds one connect to an endpoint before the next is
	// tried (default 2s).
	DialTimeout time.Duration
	// UDPIdleTimeout ends a UDP flow without traffic (default 30s).
	UDPIdleTimeout time.Duration
	// Family is the IP family of the snapshots this proxier receives and of
	// every socket it listens on (default: ListenAddr's family, else IPv4).
	// A dual-stack node runs one proxier per family, each with its own
	// table (NewNFT(Family)).
	Family proxy.IPFamily
	// ListenAddr is where ClusterIP and external listeners bind (default
	// 0.0.0.0, or :: for IPv6; the redirect rules send traffic there). It
	// must be of Family.
	ListenAddr netip.Addr
}

func (c *Config) defaults() {
	if c.Scheduler == "" {
		c.Scheduler = "rr"
	}
	if c.DialTimeout == 0 {
		c.DialTimeout = 2 * time.Second
	}
	if c.UDPIdleTimeout == 0 {
		c.UDPIdleTimeout = 30 * time.Second
	}
	if c.Family == 0 {
		c.Family = proxy.IPv4
		if c.ListenAddr.IsValid() {
			c.Family = proxy.FamilyOf(c.ListenAddr)
		}
	}
	if !c.ListenAddr.IsValid() {
		c.ListenAddr = netip.IPv4Unspecified()
		if c.Family == proxy.IPv6 {
			c.ListenAddr = netip.IPv6Unspecified()
		}
	}
}

func (c *Config) validate() error {
	if c.Family != proxy.IPv4 && c.Family != proxy.IPv6 {
		return fmt.Errorf("unknown IP family %d", c.Family)
	}
	if proxy.FamilyOf(c.ListenAddr) != c.Family || c.ListenAddr.Is4In6() {
		return fmt.Errorf("listen address %s is not of the proxier's family IPv%d", c.ListenAddr, c.Family)
	}
	return nil
}

// kind is one kind of a service port's listeners.
type kind int8

// Listener kinds; kindNone is no listener's.
const (
	kindCluster kind = iota
	kindExternal
	kindLB
	kindNodePort
	numKinds
	kindNone kind = -1
)

func (k kind) String() string {
	return [...]string{"cluster", "external", "loadbalancer", "nodeport"}[k]
}

// Proxier runs the listeners of every service port and keeps the redirect
// rules in step.
type Proxier struct {
	cfg      Config
	redirect *Redirector
	state    func() *proxy.Snapshot
	clock    clock.PassiveClock

	mu       sync.Mutex
	closed   bool // Close ran: syncs do nothing
	services map[proxy.ServicePortName]*svcState
	lastSnap *proxy.Snapshot
	// lastErr is the last sync's error; after one the next sync is full.
	lastErr error
	memory  proxy.MemoryRelease
	// OnSynced, when set, is called after each sync.
	OnSynced proxy.SyncedFunc
}

// svcState is one service port's listeners by kind (arrays rather than
// maps: 5,000 ports hold 10,000 fewer maps).
type svcState struct {
	// svc is the port as last synced (its listeners read its name while
	// a sync replaces it).
	svc       atomic.Pointer[proxy.ServicePort]
	listeners [numKinds]*listener
	// pools are the kinds the port has and their current pools (also for
	// kinds whose listener failed to open); nil for the kinds it has not.
	pools [numKinds]*pool
	// portals and refusals are the port's redirect rules in the table.
	portals  []Portal
	refusals []Refusal
}

// NewProxier returns a Proxier; redirect may be nil (no redirect rules:
// only NodePorts and listeners bound on ListenAddr are reachable).
func NewProxier(cfg Config, redirect *Redirector, state func() *proxy.Snapshot, clk clock.PassiveClock) (*Proxier, error) {
	cfg.defaults()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	if _, err := scheduler.New(cfg.Scheduler, nil); err != nil {
		return nil, err
	}
	if clk == nil {
		clk = clock.RealClock{}
	}
	return &Proxier{cfg: cfg, redirect: redirect, state: state, clock: clk, services: map[proxy.ServicePortName]*svcState{}}, nil
}

// SyncProxyRules opens listeners for new service ports, closes those of
// removed ones, swaps endpoint pools and rewrites the redirect rules. A
// partial sync (full false, with the snapshot's change set) visits only
// the changed ports, and rewrites the redirect table only when their
// portals or refusals differ: an endpoint change that leaves a port with
// endpoints swaps its pool and nothing else.
func (p *Proxier) SyncProxyRules(full bool) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil
	}
	start := p.clock.Now()
	snap := p.state()
	if snap.Family != 0 && snap.Family != p.cfg.Family {
		return fmt.Errorf("the IPv%d userspace proxier received an IPv%d snapshot", p.cfg.Family, snap.Family)
	}
	partial := !full && snap.Changes != nil && p.lastSnap != nil && p.lastErr == nil
	res := proxy.SyncResult{Full: !partial}
	var errs []error
	rulesChanged := !partial
	visit := func(name proxy.ServicePortName) {
		svc, st := snap.Services[name], p.services[name]
		if st != nil && (svc == nil || !sameShape(st.svc.Load(), svc)) {
			rulesChanged = rulesChanged || len(st.portals) > 0 || len(st.refusals) > 0
			st.close()
			delete(p.services, name)
		}
		if svc == nil {
			return
		}
		st, err := p.syncService(svc, snap.Endpoints[name], snap.Node)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", name, err))
		}
		pt, rf := st.rules(p.cfg.Family)
		if !slices.Equal(pt, st.portals) || !slices.Equal(rf, st.refusals) {
			rulesChanged = true
		}
		st.portals, st.refusals = pt, rf
	}
	if partial {
		for name := range snap.Changes.Ports {
			visit(name)
		}
	} else {
		for name := range p.services {
			if snap.Services[name] == nil {
				visit(name)
			}
		}
		for name := range snap.Services {
			visit(name)
		}
	}
	if rulesChanged && p.redirect != nil {
		np, nr := 0, 0
		for _, st := range p.services {
			np, nr = np+len(st.portals), nr+len(st.refusals)
		}
		portals, refusals := make([]Portal, 0, np), make([]Refusal, 0, nr)
		for _, st := range p.services {
			portals, refusals = append(portals, st.portals...), append(refusals, st.refusals...)
		}
		res.Changes = len(portals) + len(refusals)
		errs = append(errs, p.redirect.Sync(context.Background(), portals, refusals, !partial))
	}
	err := errors.Join(errs...)
	res.Duration = p.clock.Since(start)
	prev := p.lastSnap
	p.lastSnap, p.lastErr = snap, err
	if res.Full {
		p.memory.AfterFullSync(p.clock.Now())
	}
	klog.V(2).InfoS("Synced userspace proxy", "partial", partial, "servicePorts", len(p.services), "rulesRewritten", rulesChanged,
		"elapsed", res.Duration, "err", err)
	if p.OnSynced != nil {
		p.OnSynced(res, prev, snap, err)
	}
	return err
}

// sameShape: the listeners of a and b are the same (only pools differ).
func sameShape(a, b *proxy.ServicePort) bool {
	return a.Protocol == b.Protocol && a.NodePort == b.NodePort && a.StickyMaxAgeSeconds == b.StickyMaxAgeSeconds &&
		(len(a.ExternalIPs) > 0) == (len(b.ExternalIPs) > 0) && (len(a.LoadBalancerVIPs) > 0) == (len(b.LoadBalancerVIPs) > 0)
}

// pools computes the internal and external pools of a service port.
func pools(svc *proxy.ServicePort, eps []proxy.Endpoint, node proxy.Node) (internal, external []proxy.Endpoint, verdictInt, verdictExt string) {
	cluster, local, _, hasAny := proxy.CategorizeEndpoints(eps, svc, node)
	internal, external = cluster, cluster
	if svc.InternalPolicyLocal {
		internal = local
	}
	if svc.ExternalPolicyLocal {
		external = local
	}
	verdictInt, verdictExt = verdictReject, verdictReject
	if hasAny {
		verdictInt, verdictExt = verdictDrop, verdictDrop
	}
	return internal, external, verdictInt, verdictExt
}

func (p *Proxier) syncService(svc *proxy.ServicePort, eps []proxy.Endpoint, node proxy.Node) (*svcState, error) {
	st := p.services[svc.Name]
	if st == nil {
		st = &svcState{}
		p.services[svc.Name] = st
	}
	st.svc.Store(svc)
	internal, external, vi, ve := pools(svc, eps, node)
	var want [numKinds]*pool
	want[kindCluster] = newPool(internal, vi, nil)
	if len(svc.ExternalIPs) > 0 {
		want[kindExternal] = newPool(external, ve, nil)
	}
	if len(svc.LoadBalancerVIPs) > 0 {
		want[kindLB] = newPool(external, ve, svc.LoadBalancerSourceRanges)
	}
	if svc.NodePort != 0 {
		want[kindNodePort] = newPool(external, ve, nil)
	}
	st.pools = want
	var errs []error
	for i, pl := range want {
		k := kind(i)
		if pl == nil {
			continue
		}
		if l := st.listeners[k]; l != nil {
			l.bal.pool.Store(pl)
			continue
		}
		l, err := p.open(st, k, pl, node)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s listener: %w", k, err))
			continue
		}
		st.listeners[k] = l
	}
	return st, errors.Join(errs...)
}

// open starts a listener: NodePorts on the node port of the node's
// primary address of the proxier's family (never loopback; ListenAddr when
// it is set or the node has no address of the family), the others on a
// free port of ListenAddr. Sockets are of the family only (IPv6 ones are
// IPV6_V6ONLY), so the IPv4 and IPv6 proxiers can hold the same NodePort.
func (p *Proxier) open(st *svcState, k kind, pl *pool, node proxy.Node) (*listener, error) {
	svc := st.svc.Load()
	l := &listener{st: st, kind: k, cfg: &p.cfg}
	l.bal.sched, _ = scheduler.New(p.cfg.Scheduler, p.clock)
	l.bal.dest = svc.ClusterIP
	if svc.StickyMaxAgeSeconds > 0 {
		l.bal.affinity = newAffinity(p.clock, time.Duration(svc.StickyMaxAgeSeconds)*time.Second)
	}
	l.bal.pool.Store(pl)
	addr := netip.AddrPortFrom(p.cfg.ListenAddr, 0)
	if k == kindNodePort {
		addr = netip.AddrPortFrom(p.cfg.ListenAddr, svc.NodePort)
		if ip, ok := nodeIP(node, p.cfg.Family); ok && p.cfg.ListenAddr.IsUnspecified() {
			addr = netip.AddrPortFrom(ip, svc.NodePort)
		}
	}
	return l, l.listen(svc.Protocol, addr)
}

// nodeIP is the node's first address of the family (not loopback).
func nodeIP(node proxy.Node, fam proxy.IPFamily) (netip.Addr, bool) {
	for _, ip := range node.IPs {
		if proxy.FamilyOf(ip) == fam && !ip.IsLoopback() && !ip.Is4In6() {
			return ip, true
		}
	}
	return netip.Addr{}, false
}

// rules are a service port's redirects to its listeners, for the kinds
// with endpoints, and the refusals of the kinds without: those are not
// redirected, so the table rejects (no endpoints at all) or drops (none
// for the traffic policy) them as the kernel modes do. Listeners stay
// open while a port has no endpoints (the port keeps its listener port
// and its NodePort); what reaches them directly is reset (TCP) or
// dropped (UDP). Addresses of another family are skipped.
func (st *svcState) rules(fam proxy.IPFamily) ([]Portal, []Refusal) {
	var portals []Portal
	var refusals []Refusal
	svc := st.svc.Load()
	add := func(k kind, ips ...netip.Addr) {
		pl := st.pools[k]
		if pl == nil {
			return
		}
		port := svc.Port
		if k == kindNodePort {
			port = svc.NodePort
			ips = []netip.Addr{netip.IPv4Unspecified()}
			if fam == proxy.IPv6 {
				ips = []netip.Addr{netip.IPv6Unspecified()}
			}
		}
		for _, ip := range ips {
			switch {
			case !ip.IsValid() || proxy.FamilyOf(ip) != fam || ip.Is4In6():
			case pl.empty():
				refusals = append(refusals, Refusal{Dst: ip, Proto: svc.Protocol, Port: port, Drop: pl.verdict == verdictDrop})
			case k == kindNodePort: // bound directly
			case st.listeners[k] != nil:
				portals = append(portals, Portal{Dst: ip, Proto: svc.Protocol, Port: svc.Port, To: st.listeners[k].port()})
			}
		}
	}
	add(kindCluster, svc.ClusterIP)
	add(kindExternal, svc.ExternalIPs...)
	add(kindLB, svc.LoadBalancerVIPs...)
	add(kindNodePort)
	return portals, refusals
}

func (st *svcState) close() {
	for _, l := range st.listeners {
		if l != nil {
			l.close()
		}
	}
}

// Run waits for ctx to end, then closes the listeners (Close); it
// implements proxy.Backend.
func (p *Proxier) Run(ctx context.Context, _ func()) {
	<-ctx.Done()
	p.Close()
}

// Close stops every listener.
func (p *Proxier) Close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true // a sync racing the shutdown must not reopen listeners
	for name, st := range p.services {
		st.close()
		delete(p.services, name)
	}
	if p.redirect != nil {
		p.redirect.Close()
	}
}
