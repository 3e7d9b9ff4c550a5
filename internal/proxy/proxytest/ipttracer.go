package proxytest

import (
	"fmt"
	"net/netip"
	"slices"
	"strconv"
	"strings"

	"github.com/svcplane/svcplane/internal/proxy/iptables/iptext"
)

// IPTTracer walks packets through iptables-save text the way netfilter
// walks the tables: nat PREROUTING (or OUTPUT), the routing decision,
// filter INPUT/FORWARD (or OUTPUT), nat POSTROUTING. It understands the
// matches and targets the iptables backend writes (addresses, protocols,
// ports, addrtype, mark, conntrack NEW, statistic, recent; DNAT, MARK,
// MASQUERADE, REJECT, DROP, ACCEPT, RETURN, jumps).
type IPTTracer struct {
	tables map[string]*iptext.Table
	local  []netip.Addr
	// recent lists (ClientIP affinity), kept across traces.
	recent map[string]map[netip.Addr]bool
	// sets are ipset contents for -m set matches (SetIPSets).
	sets map[string][]string
}

// SetIPSets gives the tracer the contents of the ipsets rules match.
func (t *IPTTracer) SetIPSets(sets map[string][]string) { t.sets = sets }

// NewIPTTracer parses save text (of the filter and nat tables at least);
// localIPs are the node's addresses.
func NewIPTTracer(save string, localIPs ...string) (*IPTTracer, error) {
	tables, err := iptext.ParseSave(save)
	if err != nil {
		return nil, err
	}
	t := &IPTTracer{tables: tables, recent: map[string]map[netip.Addr]bool{}}
	for _, s := range append(localIPs, "127.0.0.1", "::1") {
		t.local = append(t.local, netip.MustParseAddr(s))
	}
	return t, nil
}

// iptPkt is a packet's mutable state during one walk.
type iptPkt struct {
	pkt
	choice int // which statistic rule of a chain matches (enumerated)
}

// Trace returns the packet's fate; the random spread is enumerated so
// Endpoints lists every reachable endpoint.
func (t *IPTTracer) Trace(p Packet) (Fate, error) {
	return enumerate(p, t.walk)
}

func (t *IPTTracer) walk(p Packet, k int) (Fate, error) {
	q := &iptPkt{pkt: pkt{src: netip.MustParseAddr(p.Src), dst: netip.MustParseAddr(p.Dst), proto: p.Proto, dport: p.Port}, choice: k}
	first := "PREROUTING"
	if p.FromNode {
		first = "OUTPUT"
	}
	steps := [][2]string{{"nat", first}, {"filter", ""}, {"nat", "POSTROUTING"}}
	for _, s := range steps {
		chain := s[1]
		if chain == "" {
			switch {
			case p.FromNode:
				chain = "OUTPUT"
			case slices.Contains(t.local, q.dst):
				chain = "INPUT"
			default:
				chain = "FORWARD"
			}
		}
		tab := t.tables[s[0]]
		if tab == nil {
			continue
		}
		v, err := t.runChain(tab, chain, q, 0)
		if err != nil {
			return Fate{}, err
		}
		if v == "DROP" || v == "REJECT" {
			return Fate{Verdict: Verdict(strings.ToLower(v))}, nil
		}
	}
	if !q.dnat {
		return Fate{Verdict: Accept}, nil
	}
	return Fate{Verdict: Endpoint, Endpoints: []string{netip.AddrPortFrom(q.dst, uint16(q.dport)).String()}, Masquerade: q.masquerade}, nil
}

// runChain returns "" (fell off the end or RETURN) or a final verdict
// (ACCEPT, DROP, REJECT; DNAT and MASQUERADE count as ACCEPT).
func (t *IPTTracer) runChain(tab *iptext.Table, chain string, q *iptPkt, depth int) (string, error) {
	if depth > 16 {
		return "", fmt.Errorf("chain loop at %s", chain)
	}
	rules, ok := tab.Rules[chain]
	if !ok {
		return "", fmt.Errorf("no chain %s in %s", chain, tab.Name)
	}
	stat := 0
	for _, r := range rules {
		args := iptext.Split(r)
		matched, target, targs, err := t.matchRule(args, q, &stat)
		if err != nil {
			return "", fmt.Errorf("%s %s: %q: %w", tab.Name, chain, r, err)
		}
		if !matched || target == "" {
			continue
		}
		v, err := t.target(tab, target, targs, q, depth)
		if err != nil || v == "RETURN" {
			return "", err
		}
		if v != "" {
			return v, nil
		}
	}
	return "", nil
}

// target applies a rule's target; "" means go on with the next rule.
func (t *IPTTracer) target(tab *iptext.Table, target string, targs []string, q *iptPkt, depth int) (string, error) {
	switch target {
	case "ACCEPT", "DROP", "REJECT", "RETURN":
		return target, nil
	case "DNAT":
		ap, err := netip.ParseAddrPort(optArg(targs, "--to-destination"))
		if err != nil {
			return "", err
		}
		q.dst, q.dport, q.dnat = ap.Addr(), int(ap.Port()), true
		return "ACCEPT", nil
	case "MASQUERADE":
		q.masquerade = true
		return "ACCEPT", nil
	case "MARK":
		for i := 0; i+1 < len(targs); i++ {
			v, _ := strconv.ParseUint(targs[i+1], 0, 32)
			switch targs[i] {
			case "--or-mark":
				q.mark |= uint32(v)
			case "--xor-mark":
				q.mark ^= uint32(v)
			}
		}
		return "", nil
	}
	v, err := t.runChain(tab, target, q, depth+1)
	if v == "RETURN" {
		v = ""
	}
	return v, err
}

func optArg(args []string, name string) string {
	for i := 0; i+1 < len(args); i++ {
		if args[i] == name {
			return args[i+1]
		}
	}
	return ""
}
