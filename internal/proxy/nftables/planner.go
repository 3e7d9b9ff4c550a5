package nftables

import (
	"fmt"
	"net/netip"
	"strconv"
	"time"

	"sigs.k8s.io/knftables"

	"github.com/svcplane/svcplane/internal/proxy"
)

// Plan turns a snapshot into the desired ruleset: the base plus every
// service port's contribution. It does no I/O.
func Plan(cfg *Config, snap *proxy.Snapshot) *ruleset {
	r := newRuleset()
	r.add(planBase(cfg, &snap.Node))
	n := 0
	for _, eps := range snap.Endpoints {
		n += len(eps)
	}
	r.sets[endpointsMap(keyIP, "tcp")].elems = make(map[string]elemState, n)
	r.sets[mapServiceIPs].elems = make(map[string]elemState, len(snap.Services))
	for name, svc := range snap.Services {
		r.add(planServicePort(cfg, svc, snap.Endpoints[name], &snap.Node))
	}
	return r
}

// destination is one way into a service port: a daddr key (ClusterIP,
// external IP, load-balancer IP) or a NodePort key.
type destination struct {
	keySpace string
	key      string // parts joined by " . "
	proto    string
	external bool
}

// planServicePort is one service port's contribution.
func planServicePort(cfg *Config, svc *proxy.ServicePort, eps []proxy.Endpoint, node *proxy.Node) *contribution {
	r := &contribution{}
	cluster, local, all, hasAny := proxy.CategorizeEndpoints(eps, svc, *node)
	internal, external := cluster, cluster
	if svc.InternalPolicyLocal {
		internal = local
	}
	if svc.ExternalPolicyLocal {
		external = local
	}
	r.elems = make([]elemDef, 0, len(all)*(2+len(svc.ExternalIPs)+len(svc.LoadBalancerVIPs))+4)
	for _, ep := range all {
		// Only a pod on this node can reach itself through this node's
		// rules; endpoints of unknown node are kept to be safe.
		if ep.IsLocal || ep.NodeName == "" {
			ip := ep.IP.String()
			r.elem(setHairpin, joinParts(ip, ip), "")
		}
	}
	proto, port := protoWord(svc.Protocol), strconv.Itoa(int(svc.Port))
	dests := []destination{{keySpace: keyIP, key: joinParts(svc.ClusterIP.String(), proto, port), proto: proto}}
	for _, ip := range append(append([]netip.Addr{}, svc.ExternalIPs...), svc.LoadBalancerVIPs...) {
		dests = append(dests, destination{keySpace: keyIP, key: joinParts(ip.String(), proto, port), proto: proto, external: true})
	}
	if svc.NodePort != 0 {
		dests = append(dests, destination{keySpace: keyNodePort, key: joinParts(proto, strconv.Itoa(int(svc.NodePort))), proto: proto, external: true})
	}
	for _, vip := range svc.LoadBalancerVIPs {
		planFirewall(r, svc, vip, proto, port)
	}
	if svc.StickyMaxAgeSeconds > 0 && len(all) > 0 {
		planAffinityEndpoints(r, cfg, svc, all)
	}
	for _, d := range dests {
		targets, mode := internal, masqCluster
		if d.external {
			targets, mode = external, masqAlways
			if svc.ExternalPolicyLocal {
				mode = masqNone
			}
		}
		if len(targets) == 0 {
			verdict := "goto " + chainReject
			if hasAny {
				verdict = "drop"
			}
			r.elem(noEndpointMap(d.keySpace), d.key, verdict)
			continue
		}
		var chain string
		if svc.StickyMaxAgeSeconds > 0 {
			chain = planAffinityChain(r, cfg, svc, d.external, mode, targets)
		} else {
			chain = planDispatch(r, cfg, d, mode, targets)
		}
		r.elem(serviceMap(d.keySpace), d.key, "goto "+chain)
	}
	return r
}

func serviceMap(keySpace string) string {
	if keySpace == keyNodePort {
		return mapServiceNodePorts
	}
	return mapServiceIPs
}

func noEndpointMap(keySpace string) string {
	if keySpace == keyNodePort {
		return mapNoEndpointNodePts
	}
	return mapNoEndpointIPs
}

// planDispatch fills the shared endpoint map with one slot per endpoint and
// makes sure the shared chain for this endpoint count and mode exists.
func planDispatch(r *contribution, cfg *Config, d destination, mode string, targets []proxy.Endpoint) string {
	// The rule names the protocol ("udp dport", not "th dport"): nft 1.0.6
	// turns a "th dport" in a map lookup into "tcp dport".
	proto := d.proto
	epMap := endpointsMap(d.keySpace, proto)
	keyExpr := wordsOf(cfg).ip + " daddr . meta l4proto . " + proto + " dport"
	if d.keySpace == keyNodePort {
		keyExpr = "meta l4proto . " + proto + " dport"
	}
	for i, ep := range targets {
		ip, port := ep.HostPort()
		r.elem(epMap, d.key+" . "+strconv.Itoa(i), ip+" . "+port)
	}
	name := dispatchChain(d.keySpace, proto, mode, len(targets))
	c := r.chain(name)
	if rule := masqRule(cfg, mode); rule != "" {
		c.add(rule)
	}
	c.add(fmt.Sprintf("dnat to %s . numgen random mod %d map @%s", keyExpr, len(targets), epMap))
	return name
}

func planFirewall(r *contribution, svc *proxy.ServicePort, vip netip.Addr, proto, port string) {
	if len(svc.LoadBalancerSourceRanges) == 0 {
		return
	}
	key := joinParts(vip.String(), proto, port)
	r.elem(setFirewallIPs, key, "")
	for _, p := range svc.LoadBalancerSourceRanges {
		r.elem(setFirewallAllow, key+" . "+p.String(), "")
	}
}

// planAffinityEndpoints declares, per endpoint, a timeout set of client
// addresses and a chain that records the client and DNATs to it.
func planAffinityEndpoints(r *contribution, cfg *Config, svc *proxy.ServicePort, all []proxy.Endpoint) {
	ip := wordsOf(cfg).ip
	timeout := time.Duration(svc.StickyMaxAgeSeconds) * time.Second
	for _, ep := range all {
		name := affinityEndpoint(svc.Name, ep)
		r.addSet(&knftables.Set{Name: name, Type: wordsOf(cfg).addrType,
			Flags: []knftables.SetFlag{knftables.DynamicFlag, knftables.TimeoutFlag}, Timeout: &timeout}, true)
		c := r.chain(name)
		c.add("update @"+name, "{", ip, "saddr }")
		// dnat to ip:port needs a transport protocol match before it.
		c.add("meta l4proto", protoWord(svc.Protocol), "dnat to", ep.String())
	}
}

// planAffinityChain builds the per-service chain used by Services with
// ClientIP affinity: known clients go back to their endpoint, new ones
// are spread at random.
func planAffinityChain(r *contribution, cfg *Config, svc *proxy.ServicePort, external bool, mode string, targets []proxy.Endpoint) string {
	kind := "int"
	if external {
		kind = "ext"
	}
	name := affinityChain(svc.Name, kind)
	c := r.chain(name)
	if rule := masqRule(cfg, mode); rule != "" {
		c.add(rule)
	}
	ip := wordsOf(cfg).ip
	vmap := ""
	for i, ep := range targets {
		epName := affinityEndpoint(svc.Name, ep)
		c.add(ip, "saddr @"+epName, "meta l4proto", protoWord(svc.Protocol), "dnat to", ep.String())
		if i > 0 {
			vmap += " , "
		}
		vmap += fmt.Sprintf("%d : goto %s", i, epName)
	}
	c.add(fmt.Sprintf("numgen random mod %d vmap { %s }", len(targets), vmap))
	return name
}
