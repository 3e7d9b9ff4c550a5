package proxytest

import (
	"fmt"
	"net/netip"
	"slices"
	"sort"
	"strconv"
	"strings"

	"sigs.k8s.io/knftables"
)

// NFTTracer walks packets through the table of a knftables.Fake.
type NFTTracer struct {
	table *knftables.FakeTable
	// LocalIPs are the node's addresses (fib daddr type local).
	local []netip.Addr
	// dynamic set contents (affinity), kept across traces.
	dynamic map[string]map[string]bool
}

// NewNFTTracer traces over fake's table; localIPs are the node's addresses.
func NewNFTTracer(fake *knftables.Fake, localIPs ...string) *NFTTracer {
	t := &NFTTracer{table: fake.Table, dynamic: map[string]map[string]bool{}}
	for _, s := range append(localIPs, "127.0.0.1", "::1") {
		t.local = append(t.local, netip.MustParseAddr(s))
	}
	return t
}

// pkt is a packet's mutable state during one walk.
type pkt struct {
	src, dst   netip.Addr
	proto      string
	dport      int
	mark       uint32
	dnat       bool
	masquerade bool
	numgen     int
}

// Trace returns the packet's fate. numgen draws are enumerated (draw k
// for the k-th walk), so Endpoints lists every reachable endpoint.
func (t *NFTTracer) Trace(p Packet) (Fate, error) {
	return enumerate(p, t.walk)
}

func (t *NFTTracer) walk(p Packet, k int) (Fate, error) {
	q := &pkt{src: netip.MustParseAddr(p.Src), dst: netip.MustParseAddr(p.Dst), proto: p.Proto, dport: p.Port, numgen: k}
	hooks := [][]string{{"prerouting"}, nil, {"postrouting"}}
	if p.FromNode {
		hooks[0] = []string{"output"}
	}
	for i, hs := range hooks {
		if i == 1 { // routing decision after DNAT
			hs = []string{"forward"}
			if slices.Contains(t.local, q.dst) {
				hs = []string{"input"}
			}
			if p.FromNode {
				continue
			}
		}
		for _, c := range t.baseChains(hs[0]) {
			v, err := t.runChain(c, q, 0)
			if err != nil {
				return Fate{}, err
			}
			if v == "drop" || v == "reject" {
				return Fate{Verdict: Verdict(v)}, nil
			}
		}
	}
	if !q.dnat {
		return Fate{Verdict: Accept}, nil
	}
	return Fate{Verdict: Endpoint, Endpoints: []string{netip.AddrPortFrom(q.dst, uint16(q.dport)).String()}, Masquerade: q.masquerade}, nil
}

// baseChains returns the chains on a hook ordered by priority.
func (t *NFTTracer) baseChains(hook string) []*knftables.FakeChain {
	var out []*knftables.FakeChain
	for _, c := range t.table.Chains {
		if c.Hook != nil && string(*c.Hook) == hook {
			out = append(out, c)
		}
	}
	sort.Slice(out, func(i, j int) bool { return priority(*out[i].Priority) < priority(*out[j].Priority) })
	return out
}

func priority(p knftables.BaseChainPriority) int {
	base := map[string]int{"raw": -300, "mangle": -150, "dstnat": -100, "filter": 0, "security": 50, "srcnat": 100}
	f := strings.Fields(string(p))
	n, ok := base[f[0]]
	if !ok {
		n, _ = strconv.Atoi(f[0])
	}
	if len(f) == 3 {
		d, _ := strconv.Atoi(f[2])
		if f[1] == "-" {
			d = -d
		}
		n += d
	}
	return n
}

// runChain returns "", "accept", "drop" or "reject".
func (t *NFTTracer) runChain(c *knftables.FakeChain, q *pkt, depth int) (string, error) {
	if depth > 16 {
		return "", fmt.Errorf("chain loop at %s", c.Name)
	}
	for _, r := range c.Rules {
		v, target, err := t.runRule(strings.Fields(r.Rule), q)
		if err != nil {
			return "", fmt.Errorf("chain %s rule %q: %w", c.Name, r.Rule, err)
		}
		switch v {
		case "continue":
			continue
		case "return":
			return "", nil
		case "jump", "goto":
			next := t.table.Chains[target]
			if next == nil {
				return "", fmt.Errorf("no chain %q", target)
			}
			res, err := t.runChain(next, q, depth+1)
			if err != nil || res != "" || v == "goto" {
				return res, err
			}
		default:
			return v, nil
		}
	}
	return "", nil
}
