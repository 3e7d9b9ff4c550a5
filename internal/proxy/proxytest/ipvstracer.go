package proxytest

import (
	"net/netip"
	"slices"
	"strings"
)

// IPVSService is one virtual server as the IPVS tracer sees it.
type IPVSService struct {
	// Key is "tcp/10.96.0.10:80".
	Key        string
	Dests      []string // "ip:port"
	Persistent bool
}

// IPVSTracer walks packets the way the IPVS mode's data path handles
// them: nat PREROUTING/OUTPUT (masquerade marks, over ipsets), filter
// INPUT (firewall drops), IPVS on local delivery (a virtual server with
// real servers DNATs to one, chosen per client when persistent; without
// real servers IPVS answers with ICMP port unreachable, a reject), then
// nat POSTROUTING.
type IPVSTracer struct {
	ipt      *IPTTracer
	services map[string]IPVSService
	// persistence: client|service → destination, kept across traces.
	persist map[string]string
}

// NewIPVSTracer traces over iptables-save text, ipset contents, the
// virtual servers and the addresses bound on kube-ipvs0; localIPs are the
// node's own addresses.
func NewIPVSTracer(save string, sets map[string][]string, services []IPVSService, bound []string, localIPs ...string) (*IPVSTracer, error) {
	ipt, err := NewIPTTracer(save, append(slices.Clone(localIPs), bound...)...)
	if err != nil {
		return nil, err
	}
	ipt.SetIPSets(sets)
	t := &IPVSTracer{ipt: ipt, services: map[string]IPVSService{}, persist: map[string]string{}}
	for _, s := range services {
		t.services[s.Key] = s
	}
	return t, nil
}

// Trace returns the packet's fate over every choice of real server.
func (t *IPVSTracer) Trace(p Packet) (Fate, error) {
	return enumerate(p, t.walk)
}

func (t *IPVSTracer) chain(table, chain string, q *iptPkt) (string, error) {
	tab := t.ipt.tables[table]
	if tab == nil {
		return "", nil
	}
	return t.ipt.runChain(tab, chain, q, 0)
}

func (t *IPVSTracer) walk(p Packet, k int) (Fate, error) {
	q := &iptPkt{pkt: pkt{src: netip.MustParseAddr(p.Src), dst: netip.MustParseAddr(p.Dst), proto: p.Proto, dport: p.Port}}
	steps := [][2]string{{"nat", "PREROUTING"}, {"filter", "INPUT"}}
	if p.FromNode {
		steps = [][2]string{{"nat", "OUTPUT"}}
	}
	for _, s := range steps {
		if s[1] == "INPUT" && !t.ipt.isLocal(q.dst) {
			s[1] = "FORWARD"
		}
		v, err := t.chain(s[0], s[1], q)
		if err != nil {
			return Fate{}, err
		}
		if v == "DROP" || v == "REJECT" {
			return Fate{Verdict: Verdict(strings.ToLower(v))}, nil
		}
	}
	if t.ipt.isLocal(q.dst) {
		key := q.proto + "/" + netip.AddrPortFrom(q.dst, uint16(q.dport)).String()
		if svc, ok := t.services[key]; ok {
			if len(svc.Dests) == 0 {
				return Fate{Verdict: Reject}, nil
			}
			dest := svc.Dests[k%len(svc.Dests)]
			if svc.Persistent {
				pk := q.src.String() + "|" + key
				if d, ok := t.persist[pk]; ok {
					dest = d
				}
				t.persist[pk] = dest
			}
			ap := netip.MustParseAddrPort(dest)
			q.dst, q.dport, q.dnat = ap.Addr(), int(ap.Port()), true
		}
	}
	if p.FromNode {
		if v, err := t.chain("filter", "OUTPUT", q); err != nil || v == "DROP" || v == "REJECT" {
			return Fate{Verdict: Verdict(strings.ToLower(v))}, err
		}
	}
	if _, err := t.chain("nat", "POSTROUTING", q); err != nil {
		return Fate{}, err
	}
	if !q.dnat {
		return Fate{Verdict: Accept}, nil
	}
	return Fate{Verdict: Endpoint, Endpoints: []string{netip.AddrPortFrom(q.dst, uint16(q.dport)).String()}, Masquerade: q.masquerade}, nil
}
