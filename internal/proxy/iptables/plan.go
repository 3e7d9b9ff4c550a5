package iptables

import (
	"fmt"
	"net/netip"
	"slices"
	"strconv"
	"strings"

	"github.com/svcplane/svcplane/internal/proxy"
	"github.com/svcplane/svcplane/internal/proxy/iptables/iptext"
)

// largeClusterEndpoints: above this many endpoints the per-endpoint rule
// comments are left out, as upstream does, to keep restores small.
const largeClusterEndpoints = 1000

// planner holds one Plan call's state; r is where rules go (the shared
// chains, or one service port's svcRules).
type planner struct {
	cfg      *Config
	r        sink
	node     proxy.Node
	comments bool
}

// Plan turns a snapshot into the desired chains of the filter, nat and
// mangle tables. It does no I/O.
func Plan(cfg *Config, snap *proxy.Snapshot) *Ruleset { return PlanFrom(cfg, snap, nil) }

// PlanFrom is Plan reusing prev's per-service parts where the service
// port, its endpoints and the node are unchanged (prev may be nil). The
// result equals Plan's.
func PlanFrom(cfg *Config, snap *proxy.Snapshot, prev *Ruleset) *Ruleset {
	return planFrom(cfg, snap, prev, nil)
}

// planFrom is PlanFrom; with changed non-nil, prev must be the plan of the
// snapshot before snap and changed its ChangeSet: the ports it does not
// name are reused from prev without comparing them.
func planFrom(cfg *Config, snap *proxy.Snapshot, prev *Ruleset, changed map[proxy.ServicePortName]struct{}) *Ruleset {
	total := 0
	for _, eps := range snap.Endpoints {
		total += len(eps)
	}
	p := &planner{cfg: cfg, node: snap.Node, comments: total <= largeClusterEndpoints}
	rs := &Ruleset{cfg: cfg, shared: newChainSet(), services: make(map[proxy.ServicePortName]*svcRules, len(snap.Services)),
		comments: p.comments, node: snap.Node}
	if prev != nil && (prev.comments != p.comments || !sameNode(prev.node, snap.Node)) {
		prev = nil
	}
	known := 0 // ports prev has too: when all are, prev's order still holds
	for name, svc := range snap.Services {
		eps := snap.Endpoints[name]
		if prev != nil {
			if old := prev.services[name]; old != nil {
				known++
				_, maybe := changed[name]
				if (changed != nil && !maybe) || (sameServicePort(old.svc, svc) && sameEndpoints(old.eps, eps)) {
					rs.services[name] = old
					continue
				}
			}
		}
		s := &svcRules{key: name.String(), svc: svc, eps: eps, own: newChainSet()}
		p.r = s
		p.servicePort(svc, eps)
		rs.services[name] = s
	}
	if prev != nil && known == len(prev.services) && known == len(rs.services) {
		rs.order = prev.order
	} else {
		rs.order = make([]proxy.ServicePortName, 0, len(rs.services))
		for name := range rs.services {
			rs.order = append(rs.order, name)
		}
		slices.SortFunc(rs.order, func(a, b proxy.ServicePortName) int {
			return strings.Compare(rs.services[a].key, rs.services[b].key)
		})
	}
	head, tail := newChainSet(), newChainSet()
	p.r = head
	p.base()
	p.r = tail
	p.nodePortDispatch()
	rs.fixed = map[string]bool{}
	for _, t := range writtenTables {
		for c, rules := range head[t] {
			rs.shared.declare(t, c)
			rs.shared[t][c] = append(rs.shared[t][c], rules...)
			for _, r := range rules {
				rs.fixed[fixedKey(t, c, r)] = true
			}
		}
	}
	for _, name := range rs.order {
		for _, r := range rs.services[name].shared {
			rs.shared.declare(r.table, r.chain)
			rs.shared[r.table][r.chain] = append(rs.shared[r.table][r.chain], r.rule)
		}
	}
	for _, t := range writtenTables {
		for c, rules := range tail[t] {
			rs.shared.declare(t, c)
			rs.shared[t][c] = append(rs.shared[t][c], rules...)
			for _, r := range rules {
				rs.fixed[fixedKey(t, c, r)] = true
			}
		}
	}
	return rs
}

// fixedKey identifies a rule of a shared chain that no Service owns.
func fixedKey(t Table, chain, rule string) string { return string(t) + "\x00" + chain + "\x00" + rule }

func comment(text string) string { return "-m comment --comment " + iptext.Quote(text) }

// base declares the fixed chains and their fixed rules.
func (p *planner) base() {
	r := p.r
	for _, c := range []string{chainServices, chainExternalServices, chainForward, chainNodePorts, chainProxyFirewall, ChainCanary} {
		r.declare(TableFilter, c)
	}
	for _, c := range []string{chainServices, chainNodePorts, chainPostrouting, chainMarkMasq, ChainCanary} {
		r.declare(TableNAT, c)
	}
	r.declare(TableMangle, ChainCanary)
	mark, markMask := markMasq(p.cfg)
	r.add(TableFilter, chainForward, "-m conntrack --ctstate INVALID -j DROP")
	r.add(TableFilter, chainForward, comment("kubernetes forwarding rules"), "-m mark --mark", markMask, "-j ACCEPT")
	r.add(TableFilter, chainForward, comment("kubernetes forwarding conntrack rule"), "-m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT")
	r.add(TableNAT, chainPostrouting, "-m mark ! --mark", markMask, "-j RETURN")
	r.add(TableNAT, chainPostrouting, "-j MARK --xor-mark", mark)
	r.add(TableNAT, chainPostrouting, comment("kubernetes service traffic requiring SNAT"), "-j MASQUERADE --random-fully")
	r.add(TableNAT, chainMarkMasq, "-j MARK --or-mark", mark)
}

// nodePortDispatch is the last rule of nat KUBE-SERVICES: local
// destinations (or the configured NodePort addresses) go to KUBE-NODEPORTS.
func (p *planner) nodePortDispatch() {
	c := comment("kubernetes service nodeports; NOTE: this must be the last rule in this chain")
	for _, d := range p.nodePortDests() {
		p.r.add(TableNAT, chainServices, c, d, "-j", chainNodePorts)
	}
}

// nodePortDests are the destination matches NodePorts are accepted on.
func (p *planner) nodePortDests() []string {
	var out []string
	for _, pfx := range p.cfg.NodePortAddresses {
		out = append(out, "-d "+pfx.String())
	}
	if p.cfg.NodePortPrimary {
		for _, ip := range p.node.IPs {
			out = append(out, "-d "+hostPrefix(ip))
		}
	}
	if len(p.cfg.NodePortAddresses) == 0 && !p.cfg.NodePortPrimary {
		out = append(out, "-m addrtype --dst-type LOCAL ! -d "+p.cfg.Loopback().String())
	}
	return out
}

// svcPlan is one service port's endpoint selection and chain choice, as
// upstream's syncProxyRules computes it.
type svcPlan struct {
	svc                                    *proxy.ServicePort
	name, proto, port                      string
	chains                                 serviceChains
	cluster, local, all                    []proxy.Endpoint
	hasEndpoints, hasInternal, hasExternal bool
	internalChain, externalPolicyChain     string
	internalFilter, externalFilter         string // REJECT, DROP or ""
	internalFilterComment, externalComment string
}

func newSvcPlan(svc *proxy.ServicePort, eps []proxy.Endpoint, node proxy.Node) *svcPlan {
	s := &svcPlan{svc: svc, name: upstreamName(svc.Name), proto: protoWord(svc.Protocol),
		port: strconv.Itoa(int(svc.Port)), chains: chainsFor(svc.Name)}
	s.cluster, s.local, s.all, s.hasEndpoints = proxy.CategorizeEndpoints(eps, svc, node)
	s.hasInternal, s.internalChain = s.hasEndpoints, s.chains.svc
	if svc.InternalPolicyLocal {
		s.internalChain, s.hasInternal = s.chains.svl, len(s.local) > 0
	}
	s.hasExternal, s.externalPolicyChain = s.hasEndpoints, s.chains.svc
	if svc.ExternalPolicyLocal {
		s.externalPolicyChain, s.hasExternal = s.chains.svl, len(s.local) > 0
	}
	switch {
	case !s.hasEndpoints:
		s.internalFilter, s.externalFilter = "REJECT", "REJECT"
		s.internalFilterComment = s.name + " has no endpoints"
		s.externalComment = s.internalFilterComment
	default:
		if !s.hasInternal {
			s.internalFilter, s.internalFilterComment = "DROP", s.name+" has no local endpoints"
		}
		if !s.hasExternal {
			s.externalFilter, s.externalComment = "DROP", s.name+" has no local endpoints"
		}
	}
	return s
}

// match is "-m tcp -p tcp -d ip --dport port".
func (s *svcPlan) match(ip netip.Addr) string {
	return "-m " + s.proto + " -p " + s.proto + " -d " + hostPrefix(ip) + " --dport " + s.port
}

func (p *planner) servicePort(svc *proxy.ServicePort, eps []proxy.Endpoint) {
	s := newSvcPlan(svc, eps, p.node)
	usesExt := s.hasEndpoints && svc.ExternallyAccessible()
	usesFW := usesExt && len(svc.LoadBalancerVIPs) > 0 && len(svc.LoadBalancerSourceRanges) > 0
	p.dispatchRules(s, usesExt, usesFW)
	if usesFW {
		p.firewallChain(s)
	}
	if usesExt {
		p.externalChain(s)
	}
	if len(s.cluster) > 0 && (!svc.InternalPolicyLocal || usesExt) {
		p.policyChain(s, s.chains.svc, s.cluster)
	}
	if len(s.local) > 0 && (svc.InternalPolicyLocal || (usesExt && svc.ExternalPolicyLocal)) {
		p.policyChain(s, s.chains.svl, s.local)
	}
	for _, ep := range s.all {
		p.endpointChain(s, ep)
	}
}

// dispatchRules writes the KUBE-SERVICES / KUBE-NODEPORTS entries (nat)
// and the no-endpoint and firewall drops (filter).
func (p *planner) dispatchRules(s *svcPlan, usesExt, usesFW bool) {
	r, svc := p.r, s.svc
	if s.hasInternal {
		r.add(TableNAT, chainServices, comment(s.name+" cluster IP"), s.match(svc.ClusterIP), "-j", s.internalChain)
	} else {
		r.add(TableFilter, chainServices, comment(s.internalFilterComment), s.match(svc.ClusterIP), "-j", s.internalFilter)
	}
	external := func(ip netip.Addr, kind, target string) {
		if s.hasEndpoints {
			r.add(TableNAT, chainServices, comment(s.name+" "+kind), s.match(ip), "-j", target)
		}
		if !s.hasExternal {
			r.add(TableFilter, chainExternalServices, comment(s.externalComment), s.match(ip), "-j", s.externalFilter)
		}
	}
	for _, ip := range svc.ExternalIPs {
		external(ip, "external IP", s.chains.ext)
	}
	for _, ip := range svc.LoadBalancerVIPs {
		target := s.chains.ext
		if usesFW {
			target = s.chains.fw
			r.add(TableFilter, chainProxyFirewall, comment(s.name+" traffic not accepted by "+s.chains.fw), s.match(ip), "-j DROP")
		}
		external(ip, "loadbalancer IP", target)
	}
	if svc.HealthCheckNodePort != 0 {
		r.add(TableFilter, chainNodePorts, comment(s.name+" health check node port"), "-m tcp -p tcp --dport",
			strconv.Itoa(int(svc.HealthCheckNodePort)), "-j ACCEPT")
	}
	if svc.NodePort == 0 {
		return
	}
	np := "-m " + s.proto + " -p " + s.proto + " --dport " + strconv.Itoa(int(svc.NodePort))
	if usesExt {
		r.add(TableNAT, chainNodePorts, comment(s.name), np, "-j", s.chains.ext)
	}
	if !s.hasExternal {
		for _, d := range p.nodePortDests() {
			r.add(TableFilter, chainExternalServices, comment(s.externalComment), d, np, "-j", s.externalFilter)
		}
	}
}

// firewallChain is KUBE-FW-*: allowed sources go on to KUBE-EXT-*; the
// rest fall through un-NATed and meet the KUBE-PROXY-FIREWALL drop.
func (p *planner) firewallChain(s *svcPlan) {
	fw := s.chains.fw
	p.r.declare(TableNAT, fw)
	c := comment(s.name + " loadbalancer IP")
	allowFromNode := false
	for _, cidr := range s.svc.LoadBalancerSourceRanges {
		p.r.add(TableNAT, fw, c, "-s", cidr.String(), "-j", s.chains.ext)
		for _, ip := range p.node.IPs {
			allowFromNode = allowFromNode || cidr.Contains(ip)
		}
	}
	if allowFromNode {
		for _, ip := range s.svc.LoadBalancerVIPs {
			p.r.add(TableNAT, fw, c, "-s", hostPrefix(ip), "-j", s.chains.ext)
		}
	}
	p.r.add(TableNAT, fw, comment("other traffic to "+s.name+" will be dropped by KUBE-PROXY-FIREWALL"))
}

// externalChain is KUBE-EXT-*: masquerade and the policy chain; with Local
// policy, pod and node traffic short-circuit to the cluster endpoints.
func (p *planner) externalChain(s *svcPlan) {
	ext, r := s.chains.ext, p.r
	r.declare(TableNAT, ext)
	if !s.svc.ExternalPolicyLocal {
		r.add(TableNAT, ext, comment("masquerade traffic for "+s.name+" external destinations"), "-j", chainMarkMasq)
	} else if len(s.cluster) > 0 {
		for _, cidr := range p.cfg.ClusterCIDRs {
			r.add(TableNAT, ext, comment("pod traffic for "+s.name+" external destinations"), "-s", cidr.String(), "-j", s.chains.svc)
		}
		r.add(TableNAT, ext, comment("masquerade LOCAL traffic for "+s.name+" external destinations"), "-m addrtype --src-type LOCAL -j", chainMarkMasq)
		r.add(TableNAT, ext, comment("route LOCAL traffic for "+s.name+" external destinations"), "-m addrtype --src-type LOCAL -j", s.chains.svc)
	}
	if s.hasExternal {
		r.add(TableNAT, ext, "-j", s.externalPolicyChain)
	}
}

// policyChain is KUBE-SVC-* or KUBE-SVL-*: the ClusterIP masquerade rule
// when this is the internal chain, affinity checks, then the random spread.
func (p *planner) policyChain(s *svcPlan, chain string, eps []proxy.Endpoint) {
	r := p.r
	r.declare(TableNAT, chain)
	if chain == s.internalChain {
		m := comment(s.name+" cluster IP") + " " + s.match(s.svc.ClusterIP)
		switch {
		case p.cfg.MasqueradeAll:
			r.add(TableNAT, chain, m, "-j", chainMarkMasq)
		case len(p.cfg.ClusterCIDRs) > 0:
			for _, cidr := range p.cfg.ClusterCIDRs {
				r.add(TableNAT, chain, m, "! -s", cidr.String(), "-j", chainMarkMasq)
			}
		}
	}
	if age := s.svc.StickyMaxAgeSeconds; age > 0 {
		for _, ep := range eps {
			sep := endpointChain(s.svc.Name, ep)
			r.add(TableNAT, chain, p.epComment(s, ep), "-m recent --name", sep, "--rcheck --seconds", strconv.Itoa(age), "--reap -j", sep)
		}
	}
	for i, ep := range eps {
		sep := endpointChain(s.svc.Name, ep)
		if n := len(eps) - i; n > 1 {
			r.add(TableNAT, chain, p.epComment(s, ep), "-m statistic --mode random --probability", probability(n), "-j", sep)
		} else {
			r.add(TableNAT, chain, p.epComment(s, ep), "-j", sep)
		}
	}
}

// endpointChain is KUBE-SEP-*: hairpin masquerade, affinity record, DNAT.
func (p *planner) endpointChain(s *svcPlan, ep proxy.Endpoint) {
	sep := endpointChain(s.svc.Name, ep)
	p.r.declare(TableNAT, sep)
	c := p.svcComment(s)
	p.r.add(TableNAT, sep, c, "-s", hostPrefix(ep.IP), "-j", chainMarkMasq)
	affinity := ""
	if s.svc.StickyMaxAgeSeconds > 0 {
		affinity = "-m recent --name " + sep + " --set "
	}
	p.r.add(TableNAT, sep, c, affinity+"-m", s.proto, "-p", s.proto, "-j DNAT --to-destination", ep.String())
}

func (p *planner) svcComment(s *svcPlan) string {
	if !p.comments {
		return ""
	}
	return comment(s.name)
}

func (p *planner) epComment(s *svcPlan, ep proxy.Endpoint) string {
	if !p.comments {
		return ""
	}
	return comment(s.name + " -> " + ep.String())
}

// probability is 1/n as iptables-save prints it (11 decimals).
func probability(n int) string { return fmt.Sprintf("%0.11f", 1.0/float64(n)) }
