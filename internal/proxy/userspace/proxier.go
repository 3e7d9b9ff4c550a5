package userspace

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"sync"
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
	// ListenAddr is where ClusterIP and external listeners bind (default
	// 0.0.0.0; the redirect rules send traffic there).
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
	if !c.ListenAddr.IsValid() {
		c.ListenAddr = netip.IPv4Unspecified()
	}
}

// Listener kinds.
const (
	kindCluster  = "cluster"
	kindExternal = "external"
	kindLB       = "loadbalancer"
	kindNodePort = "nodeport"
)

// SyncResult describes one sync.
type SyncResult struct {
	Full      bool
	Listeners int
	Portals   int
	Duration  time.Duration
}

// Proxier runs the listeners of every service port and keeps the redirect
// rules in step.
type Proxier struct {
	cfg      Config
	redirect *Redirector
	state    func() *proxy.Snapshot
	clock    clock.PassiveClock

	mu       sync.Mutex
	services map[proxy.ServicePortName]*svcState
	lastSnap *proxy.Snapshot
	// OnSynced, when set, is called after each sync.
	OnSynced func(res SyncResult, prev, cur *proxy.Snapshot, err error)
}

// svcState is one service port's listeners by kind.
type svcState struct {
	svc       *proxy.ServicePort
	listeners map[string]*listener
}

// NewProxier returns a Proxier; redirect may be nil (no redirect rules:
// only NodePorts and listeners bound on ListenAddr are reachable).
func NewProxier(cfg Config, redirect *Redirector, state func() *proxy.Snapshot, clk clock.PassiveClock) (*Proxier, error) {
	cfg.defaults()
	if _, err := scheduler.New(cfg.Scheduler, nil); err != nil {
		return nil, err
	}
	if clk == nil {
		clk = clock.RealClock{}
	}
	return &Proxier{cfg: cfg, redirect: redirect, state: state, clock: clk, services: map[proxy.ServicePortName]*svcState{}}, nil
}

// SyncProxyRules opens listeners for new service ports, closes those of
// removed ones, swaps endpoint pools and rewrites the redirect rules.
// full is accepted for the runner; every sync is complete and cheap.
func (p *Proxier) SyncProxyRules(full bool) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	start := p.clock.Now()
	snap := p.state()
	var errs []error
	for name, st := range p.services {
		if svc := snap.Services[name]; svc == nil || !sameShape(st.svc, svc) {
			st.close()
			delete(p.services, name)
		}
	}
	var portals []Portal
	res := SyncResult{Full: full}
	for name, svc := range snap.Services {
		st, err := p.syncService(svc, snap.Endpoints[name], snap.Node)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", name, err))
		}
		if st == nil {
			continue
		}
		res.Listeners += len(st.listeners)
		portals = append(portals, st.portals()...)
	}
	res.Portals = len(portals)
	if p.redirect != nil {
		errs = append(errs, p.redirect.Sync(context.Background(), portals))
	}
	err := errors.Join(errs...)
	res.Duration = p.clock.Since(start)
	prev := p.lastSnap
	p.lastSnap = snap
	klog.V(2).InfoS("Synced userspace proxy", "listeners", res.Listeners, "portals", res.Portals, "elapsed", res.Duration, "err", err)
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
		st = &svcState{listeners: map[string]*listener{}}
		p.services[svc.Name] = st
	}
	st.svc = svc
	internal, external, vi, ve := pools(svc, eps, node)
	want := map[string]*pool{}
	old := func(kind string) *pool {
		if l := st.listeners[kind]; l != nil {
			return l.bal.pool.Load()
		}
		return nil
	}
	want[kindCluster] = newPool(old(kindCluster), internal, vi, nil)
	if len(svc.ExternalIPs) > 0 {
		want[kindExternal] = newPool(old(kindExternal), external, ve, nil)
	}
	if len(svc.LoadBalancerVIPs) > 0 {
		want[kindLB] = newPool(old(kindLB), external, ve, svc.LoadBalancerSourceRanges)
	}
	if svc.NodePort != 0 {
		want[kindNodePort] = newPool(old(kindNodePort), external, ve, nil)
	}
	var errs []error
	for kind, pl := range want {
		if l := st.listeners[kind]; l != nil {
			l.bal.pool.Store(pl)
			continue
		}
		l, err := p.open(svc, kind, pl, node)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s listener: %w", kind, err))
			continue
		}
		st.listeners[kind] = l
	}
	return st, errors.Join(errs...)
}

// open starts a listener: NodePorts on the node port of the node's
// primary address (never loopback; ListenAddr when it is set), the others
// on a free port of ListenAddr.
func (p *Proxier) open(svc *proxy.ServicePort, kind string, pl *pool, node proxy.Node) (*listener, error) {
	sched, _ := scheduler.New(p.cfg.Scheduler, p.clock)
	bal := &balancer{sched: sched, dest: svc.ClusterIP}
	if svc.StickyMaxAgeSeconds > 0 {
		bal.affinity = newAffinity(p.clock, time.Duration(svc.StickyMaxAgeSeconds)*time.Second)
	}
	bal.pool.Store(pl)
	addr := netip.AddrPortFrom(p.cfg.ListenAddr, 0)
	if kind == kindNodePort {
		addr = netip.AddrPortFrom(p.cfg.ListenAddr, svc.NodePort)
		if len(node.IPs) > 0 && p.cfg.ListenAddr.IsUnspecified() {
			addr = netip.AddrPortFrom(node.IPs[0], svc.NodePort)
		}
	}
	return listen(svc.Name.String()+"/"+kind, svc.Protocol, addr, bal, &p.cfg)
}

// portals are the redirects to a service port's listeners.
func (st *svcState) portals() []Portal {
	var out []Portal
	add := func(kind string, ips ...netip.Addr) {
		if l := st.listeners[kind]; l != nil {
			for _, ip := range ips {
				out = append(out, Portal{Dst: ip, Proto: st.svc.Protocol, Port: st.svc.Port, To: l.port()})
			}
		}
	}
	add(kindCluster, st.svc.ClusterIP)
	add(kindExternal, st.svc.ExternalIPs...)
	add(kindLB, st.svc.LoadBalancerVIPs...)
	return out
}

func (st *svcState) close() {
	for _, l := range st.listeners {
		l.close()
	}
}

// Close stops every listener.
func (p *Proxier) Close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for name, st := range p.services {
		st.close()
		delete(p.services, name)
	}
}
