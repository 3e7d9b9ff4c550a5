package ipvs

import (
	"fmt"
	"strings"

	"github.com/svcplane/svcplane/internal/proxy"
)

// iptablesRules is the mode's fixed iptables-restore text (it changes only
// with the configuration: the per-Service data lives in the ipsets). It
// includes the jumps from the builtin chains when jumps is set. For IPv6
// it is ip6tables-restore input: the family's set names, ::1 as the
// loopback and only the IPv6 cluster CIDRs.
func iptablesRules(cfg *Config, jumps bool) string {
	family := familyOf(cfg)
	set := func(base string) string { return SetName(family, base) }
	rc := proxy.RulesConfig{Family: family, MasqueradeBit: cfg.MasqueradeBit}
	mark := fmt.Sprintf("%#x", rc.MasqueradeMark())
	loopback := rc.Loopback().String()
	var b strings.Builder
	w := func(lines ...string) {
		for _, l := range lines {
			b.WriteString(l + "\n")
		}
	}
	w("*nat", ":KUBE-SERVICES - [0:0]", ":KUBE-POSTROUTING - [0:0]", ":KUBE-MARK-MASQ - [0:0]",
		":KUBE-NODE-PORT - [0:0]", ":KUBE-LOAD-BALANCER - [0:0]", ":KUBE-EXTERNAL-SERVICES - [0:0]")
	w("-A KUBE-SERVICES -m set --match-set " + set(setLoadBalancer) + " dst,dst -j KUBE-LOAD-BALANCER")
	switch {
	case cfg.MasqueradeAll:
		w("-A KUBE-SERVICES -m set --match-set " + set(setClusterIP) + " dst,dst -j KUBE-MARK-MASQ")
	default:
		for _, c := range cfg.ClusterCIDRs {
			if proxy.FamilyOf(c.Addr()) != family {
				continue
			}
			w("-A KUBE-SERVICES ! -s " + c.String() + " -m set --match-set " + set(setClusterIP) + " dst,dst -j KUBE-MARK-MASQ")
		}
	}
	w("-A KUBE-SERVICES -m set --match-set "+set(setExternalIP)+" dst,dst -j KUBE-EXTERNAL-SERVICES",
		"-A KUBE-SERVICES -m addrtype --dst-type LOCAL ! -d "+loopback+" -j KUBE-NODE-PORT",
		"-A KUBE-EXTERNAL-SERVICES -m set --match-set "+set(setExternalIPLocal)+" dst,dst -j RETURN",
		"-A KUBE-EXTERNAL-SERVICES -j KUBE-MARK-MASQ",
		"-A KUBE-LOAD-BALANCER -m set --match-set "+set(setLoadBalancerLoc)+" dst,dst -j RETURN",
		"-A KUBE-LOAD-BALANCER -j KUBE-MARK-MASQ")
	for _, np := range []struct{ proto, local, all string }{
		{"tcp", setNodePortLocalTCP, setNodePortTCP}, {"udp", setNodePortLocalUDP, setNodePortUDP},
	} {
		w("-A KUBE-NODE-PORT -p "+np.proto+" -m set --match-set "+set(np.local)+" dst -j RETURN",
			"-A KUBE-NODE-PORT -p "+np.proto+" -m set --match-set "+set(np.all)+" dst -j KUBE-MARK-MASQ")
	}
	w("-A KUBE-POSTROUTING -m set --match-set "+set(setLoopBack)+" dst,dst,src -j MASQUERADE",
		"-A KUBE-POSTROUTING -m mark ! --mark "+mark+"/"+mark+" -j RETURN",
		"-A KUBE-POSTROUTING -j MARK --xor-mark "+mark,
		`-A KUBE-POSTROUTING -m comment --comment "kubernetes service traffic requiring SNAT" -j MASQUERADE --random-fully`,
		"-A KUBE-MARK-MASQ -j MARK --or-mark "+mark)
	if jumps {
		w(`-I PREROUTING 1 -m comment --comment "kubernetes service portals" -j KUBE-SERVICES`,
			`-I OUTPUT 1 -m comment --comment "kubernetes service portals" -j KUBE-SERVICES`,
			`-I POSTROUTING 1 -m comment --comment "kubernetes postrouting rules" -j KUBE-POSTROUTING`)
	}
	w("COMMIT", "*filter", ":KUBE-PROXY-FIREWALL - [0:0]", ":KUBE-FORWARD - [0:0]",
		"-A KUBE-PROXY-FIREWALL -m set --match-set "+set(setLoadBalancerFW)+" dst,dst -m set ! --match-set "+set(setLoadBalancerSrc)+" dst,dst,src -j DROP",
		"-A KUBE-PROXY-FIREWALL -m set --match-set "+set(setNoLocalEndpoints)+" dst,dst -j DROP",
		"-A KUBE-FORWARD -m conntrack --ctstate INVALID -j DROP",
		"-A KUBE-FORWARD -m mark --mark "+mark+"/"+mark+" -j ACCEPT",
		"-A KUBE-FORWARD -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT")
	if jumps {
		w(`-I INPUT 1 -m conntrack --ctstate NEW -m comment --comment "kubernetes load balancer firewall" -j KUBE-PROXY-FIREWALL`,
			`-I FORWARD 1 -m comment --comment "kubernetes forwarding rules" -j KUBE-FORWARD`)
	}
	w("COMMIT")
	return b.String()
}
