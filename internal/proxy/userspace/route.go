package userspace

import (
	"net/netip"
	"slices"

	"github.com/svcplane/svcplane/internal/proxy"
)

// Route is where the proxy sends a new flow: the verdict ("endpoint",
// "reject", "drop" or "" for not proxied) and the endpoints it may reach
// (the one chosen, when the port has ClientIP affinity). local reports
// whether an address is the node's (where NodePorts listen). It reads the
// listeners' current pools, so tests and debugging see what the data path
// does.
func (p *Proxier) Route(src, dst netip.Addr, proto proxy.Protocol, port uint16, local func(netip.Addr) bool) (string, []string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, st := range p.services {
		svc := st.svc.Load()
		if svc.Protocol != proto {
			continue
		}
		k := kindNone
		switch {
		case port == svc.Port && dst == svc.ClusterIP:
			k = kindCluster
		case port == svc.Port && slices.Contains(svc.ExternalIPs, dst):
			k = kindExternal
		case port == svc.Port && slices.Contains(svc.LoadBalancerVIPs, dst):
			k = kindLB
		case port == svc.NodePort && local(dst) && !dst.IsLoopback():
			k = kindNodePort
		}
		if k == kindNone {
			continue
		}
		if l := st.listeners[k]; l != nil {
			return l.route(src)
		}
	}
	return "", nil
}

func (l *listener) route(src netip.Addr) (string, []string) {
	pl := l.bal.pool.Load()
	switch {
	case !pl.allowed(src):
		return verdictDrop, nil
	case pl.empty():
		return pl.verdict, nil
	case l.bal.affinity != nil:
		return "endpoint", []string{l.bal.pick(src, nil).Key}
	}
	var out []string
	for _, ep := range pl.eps {
		out = append(out, ep.String())
	}
	slices.Sort(out)
	return "endpoint", out
}
