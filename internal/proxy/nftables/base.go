package nftables

import (
	"strings"

	"sigs.k8s.io/knftables"

	"github.com/svcplane/svcplane/internal/proxy"
)

// baseChain declares a chain hooked into netfilter.
func (r *contribution) baseChain(name string, typ knftables.BaseChainType, hook knftables.BaseChainHook, prio string) *chainDef {
	c := r.chain(name)
	p := knftables.BaseChainPriority(prio)
	c.obj.Type, c.obj.Hook, c.obj.Priority = &typ, &hook, &p
	return c
}

// planBase declares the fixed part of the table: hooks, dispatch chains
// of the fixed kind and the shared maps and sets. It depends only on the
// configuration and the node's addresses.
func planBase(cfg *Config, node *proxy.Node) *contribution {
	r := &contribution{}
	w := wordsOf(cfg)
	addr := w.addrType
	vmap := func(name, typ string) {
		r.addPortMap(&knftables.Map{Name: name, Type: typ + " : verdict"})
	}
	vmap(mapServiceIPs, addr+" . inet_proto . inet_service")
	vmap(mapServiceNodePorts, "inet_proto . inet_service")
	vmap(mapNoEndpointIPs, addr+" . inet_proto . inet_service")
	vmap(mapNoEndpointNodePts, "inet_proto . inet_service")
	// One endpoint map per protocol: the value's port is typed by the
	// protocol ("udp dport"), consistent with the dispatch chain reading
	// it; nft 1.0.6 can neither read back a "th dport" value typeof nor
	// accept a "tcp dport" value in a UDP chain's dnat.
	for _, proto := range []string{"tcp", "udp", "sctp"} {
		r.addPortMap(&knftables.Map{Name: endpointsMap(keyIP, proto),
			TypeOf: w.ip + " daddr . meta l4proto . th dport . numgen random mod 1 : " + w.ip + " daddr . " + proto + " dport"})
		r.addPortMap(&knftables.Map{Name: endpointsMap(keyNodePort, proto),
			TypeOf: "meta l4proto . th dport . numgen random mod 1 : " + w.ip + " daddr . " + proto + " dport"})
	}
	r.addSet(&knftables.Set{Name: setHairpin, Type: addr + " . " + addr}, false)
	r.addPortSet(&knftables.Set{Name: setFirewallIPs, Type: addr + " . inet_proto . inet_service"})
	r.addPortSet(&knftables.Set{Name: setFirewallAllow, Type: addr + " . inet_proto . inet_service . " + addr,
		Flags: []knftables.SetFlag{knftables.IntervalFlag}})

	nodePortMatch := "fib daddr type local " + w.ip + " daddr != " + w.loopback
	if len(cfg.NodePortAddresses) > 0 || cfg.NodePortPrimary {
		r.addSet(&knftables.Set{Name: setNodePortIPs, Type: addr, Flags: []knftables.SetFlag{knftables.IntervalFlag}}, false)
		nodePortMatch = w.ip + " daddr @" + setNodePortIPs
		for _, p := range cfg.NodePortAddresses {
			r.elem(setNodePortIPs, p.String(), "")
		}
		if cfg.NodePortPrimary {
			for _, ip := range node.IPs {
				r.elem(setNodePortIPs, ip.String(), "")
			}
		}
	}
	daddrKey := w.ip + " daddr . meta l4proto . th dport"

	r.baseChain("nat-prerouting", knftables.NATType, knftables.PreroutingHook, "dstnat").add("jump", chainServices)
	r.baseChain("nat-output", knftables.NATType, knftables.OutputHook, "dstnat").add("jump", chainServices)
	r.baseChain("nat-postrouting", knftables.NATType, knftables.PostroutingHook, "srcnat").add("jump", chainMasquerading)
	// The endpoint checks run before DNAT in prerouting and output (reject
	// there needs Linux ≥ 5.13), so they work whether or not the node has
	// a route for the service address.
	for _, hook := range []knftables.BaseChainHook{knftables.PreroutingHook, knftables.OutputHook} {
		c := r.baseChain("filter-"+string(hook), knftables.FilterType, hook, "-110")
		c.add("ct state new jump", chainFirewallCheck)
		c.add("ct state new jump", chainServiceEPCheck)
		c.add("ct state new jump", chainNodePortEPCheck)
	}

	svc := r.chain(chainServices)
	svc.add(daddrKey, "vmap @"+mapServiceIPs)
	svc.add(nodePortMatch, "meta l4proto . th dport vmap @"+mapServiceNodePorts)
	r.chain(chainServiceEPCheck).add(daddrKey, "vmap @"+mapNoEndpointIPs)
	r.chain(chainNodePortEPCheck).add(nodePortMatch, "meta l4proto . th dport vmap @"+mapNoEndpointNodePts)
	r.chain(chainFirewallCheck).add(daddrKey, "@"+setFirewallIPs, daddrKey, ".", w.ip, "saddr != @"+setFirewallAllow, "drop")
	r.chain(chainReject).add("reject")

	mark := markBit(cfg)
	r.chain(chainMarkForMasq).add("meta mark set meta mark or", mark)
	m := r.chain(chainMasquerading)
	m.add("ct status dnat", w.ip, "saddr .", w.ip, "daddr @"+setHairpin, "masquerade")
	m.add("meta mark and", mark, "== 0 return")
	m.add("meta mark set meta mark xor", mark)
	m.add("masquerade fully-random")
	return r
}

// masqRule is the first rule of a dispatch chain of the given mode, or "".
func masqRule(cfg *Config, mode string) string {
	switch {
	case mode == masqAlways || (mode == masqCluster && cfg.MasqueradeAll):
		return "jump " + chainMarkForMasq
	case mode == masqCluster && len(cfg.ClusterCIDRs) > 0:
		cidrs := make([]string, len(cfg.ClusterCIDRs))
		for i, p := range cfg.ClusterCIDRs {
			cidrs[i] = p.String()
		}
		return wordsOf(cfg).ip + " saddr != { " + strings.Join(cidrs, ", ") + " } jump " + chainMarkForMasq
	}
	return ""
}
