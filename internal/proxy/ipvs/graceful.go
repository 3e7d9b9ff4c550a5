package ipvs

import (
	"context"
	"errors"
	"fmt"
	"syscall"
	"time"

	"k8s.io/klog/v2"

	"github.com/svcplane/svcplane/internal/bootstrap/periodic"
	"github.com/svcplane/svcplane/internal/proxy"
)

// DefaultGracefulTerminationInterval is how often real servers being
// drained are checked, upstream's rsCheckDeleteInterval.
const DefaultGracefulTerminationInterval = time.Minute

// Graceful termination, as upstream's GracefulTerminationManager: a real
// server whose endpoint went away (or is terminating while ready ones
// remain, so CategorizeEndpoints no longer picks it) is not deleted while
// the kernel still counts connections to it. Its weight goes to 0, so no
// new connection picks it, and it is remembered as draining; each check
// (every Config.GracefulTerminationInterval, and at most that often
// during syncs) deletes the draining real servers without connections.
// UDP and SCTP real servers are deleted at once, as upstream does (with
// expire_nodest_conn the kernel drops their flows on the next packet).
// An endpoint that comes back while its real server drains gets its
// weight back. A virtual server that goes away is deleted at once with
// its real servers, draining or not.

// draining is a real server at weight 0 waiting for its connections to end.
type draining struct {
	vs VirtualServer
	rs RealServer
}

func drainKey(vs *VirtualServer, rs *RealServer) string { return vs.Key() + "/" + rs.Key() }

// gracefulTermination reports whether real servers of protocol p are
// drained before being deleted.
func gracefulTermination(p proxy.Protocol) bool { return p != proxy.UDP && p != proxy.SCTP }

// findReal returns vs's real server with rs's address and port in the
// kernel (with its connection counters), nil when there is none.
func (p *Proxier) findReal(vs *VirtualServer, rs *RealServer) (*RealServer, error) {
	reals, err := p.handle.GetRealServers(vs)
	if err != nil {
		return nil, err
	}
	for _, r := range reals {
		if r.Key() == rs.Key() {
			return r, nil
		}
	}
	return nil, nil
}

// gracefulDelete removes rs from vs now when it has no connections (or
// its protocol is not drained), else sets its weight to 0 and records it
// as draining. It returns the number of IPVS changes made.
func (p *Proxier) gracefulDelete(vs *VirtualServer, rs *RealServer) (int, error) {
	if !gracefulTermination(vs.Protocol) {
		return 1, p.handle.DeleteRealServer(vs, rs)
	}
	cur, err := p.findReal(vs, rs)
	if err != nil || cur == nil {
		return 0, err
	}
	if cur.ActiveConn+cur.InactiveConn == 0 {
		return 1, p.handle.DeleteRealServer(vs, cur)
	}
	n := 0
	if cur.Weight != 0 {
		zero := RealServer{Address: cur.Address, Port: cur.Port}
		if err := p.handle.UpdateRealServer(vs, &zero); err != nil {
			return 1, err
		}
		n = 1
	}
	klog.V(4).InfoS("Draining IPVS real server", "virtualServer", vs.Key(), "realServer", rs.Key(),
		"activeConn", cur.ActiveConn, "inactiveConn", cur.InactiveConn)
	p.draining[drainKey(vs, rs)] = draining{vs: *vs, rs: RealServer{Address: rs.Address, Port: rs.Port}}
	return n, nil
}

// undrain restores the weight of rs when it was draining; it reports
// whether it was.
func (p *Proxier) undrain(vs *VirtualServer, rs *RealServer, errs *[]error) bool {
	key := drainKey(vs, rs)
	if _, ok := p.draining[key]; !ok {
		return false
	}
	delete(p.draining, key)
	*errs = append(*errs, p.handle.UpdateRealServer(vs, rs))
	return true
}

// forgetDraining drops the draining real servers of a deleted virtual
// server.
func (p *Proxier) forgetDraining(vs *VirtualServer) {
	for key, d := range p.draining {
		if d.vs.Key() == vs.Key() {
			delete(p.draining, key)
		}
	}
}

// DrainTerminated checks every draining real server once: those without
// connections (or gone from the kernel) are deleted and forgotten. It
// returns how many it deleted.
func (p *Proxier) DrainTerminated() (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.drainLocked()
}

func (p *Proxier) drainLocked() (int, error) {
	p.lastDrain = p.clock.Now()
	n := 0
	var errs []error
	for _, key := range sortedNames(p.draining) {
		d := p.draining[key]
		cur, err := p.findReal(&d.vs, &d.rs)
		switch {
		case errors.Is(err, syscall.ENOENT) || (err == nil && cur == nil):
			delete(p.draining, key) // the virtual or real server is gone
		case err != nil:
			errs = append(errs, err)
		case gracefulTermination(d.vs.Protocol) && cur.ActiveConn+cur.InactiveConn > 0:
			klog.V(5).InfoS("IPVS real server still has connections", "realServer", key,
				"activeConn", cur.ActiveConn, "inactiveConn", cur.InactiveConn)
		default:
			if err := p.handle.DeleteRealServer(&d.vs, cur); err != nil && !errors.Is(err, syscall.ENOENT) {
				errs = append(errs, fmt.Errorf("delete drained real server %s: %w", key, err))
				continue
			}
			delete(p.draining, key)
			n++
		}
	}
	if n > 0 {
		klog.V(2).InfoS("Deleted drained IPVS real servers", "count", n, "stillDraining", len(p.draining))
	}
	return n, errors.Join(errs...)
}

// drainDue runs a check when the interval passed since the last one, so
// real servers drain even when RunGracefulTermination is not running.
func (p *Proxier) drainDue() {
	if len(p.draining) == 0 || p.clock.Since(p.lastDrain) < p.cfg.GracefulTerminationInterval {
		return
	}
	if _, err := p.drainLocked(); err != nil {
		klog.ErrorS(err, "Graceful termination check")
	}
}

// Draining returns the real servers being drained,
// "tcp/10.96.0.10:80/10.244.1.2:8080", sorted.
func (p *Proxier) Draining() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return sortedNames(p.draining)
}

// Run runs the graceful termination checks (RunGracefulTermination) until
// ctx ends; it implements proxy.Backend.
func (p *Proxier) Run(ctx context.Context, _ func()) { p.RunGracefulTermination(ctx) }

// RunGracefulTermination checks the draining real servers every
// Config.GracefulTerminationInterval (on the Proxier's clock) until ctx
// ends.
func (p *Proxier) RunGracefulTermination(ctx context.Context) {
	periodic.Run(ctx, p.clock, p.cfg.GracefulTerminationInterval, nil, "Graceful termination check", func(context.Context) error {
		_, err := p.DrainTerminated()
		if p.afterDrain != nil {
			p.afterDrain()
		}
		return err
	})
}
