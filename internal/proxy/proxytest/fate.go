package proxytest

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Packet is the first packet of a connection.
type Packet struct {
	Src, Dst string
	Proto    string // "tcp", "udp", "sctp"
	Port     int
	// FromNode: sent by a process on the node (output hook) rather than
	// arriving on an interface (prerouting).
	FromNode bool
}

func (p Packet) String() string {
	where := "in"
	if p.FromNode {
		where = "node"
	}
	return fmt.Sprintf("%s %s → %s:%d/%s", where, p.Src, p.Dst, p.Port, p.Proto)
}

// Verdict is what happens to a packet.
type Verdict string

// The verdicts.
const (
	// Endpoint: DNATed to one of Fate.Endpoints.
	Endpoint Verdict = "endpoint"
	Drop     Verdict = "drop"
	Reject   Verdict = "reject"
	// Accept: untouched by the proxy.
	Accept Verdict = "accept"
)

// Fate is the observed or expected result of tracing a packet.
type Fate struct {
	Verdict Verdict
	// Endpoints: every endpoint ("ip:port") the packet may reach, sorted.
	Endpoints []string
	// Masquerade: the source is rewritten to the node.
	Masquerade bool
	// Sticky: once one endpoint was chosen, every later packet from the same
	// source reaches it (Endpoints then lists the candidates).
	Sticky bool
}

func (f Fate) String() string {
	s := string(f.Verdict)
	if f.Verdict == Endpoint {
		s += " " + strings.Join(f.Endpoints, ",")
	}
	if f.Masquerade {
		s += " +masq"
	}
	if f.Sticky {
		s += " sticky"
	}
	return s
}

// Matches compares an observed fate (got) with an expected one.
func (f Fate) Matches(got Fate) bool {
	if f.Verdict != got.Verdict || (f.Verdict == Endpoint && f.Masquerade != got.Masquerade) {
		return false
	}
	if f.Verdict != Endpoint {
		return true
	}
	if f.Sticky {
		return len(got.Endpoints) == 1 && slices.Contains(f.Endpoints, got.Endpoints[0])
	}
	return slices.Equal(f.Endpoints, got.Endpoints)
}

// To is an Endpoint fate.
func To(endpoints ...string) Fate {
	eps := slices.Clone(endpoints)
	slices.Sort(eps)
	return Fate{Verdict: Endpoint, Endpoints: eps}
}

// Masq marks a fate as masqueraded.
func (f Fate) Masq() Fate { f.Masquerade = true; return f }

// Stick marks a fate as sticky.
func (f Fate) Stick() Fate { f.Sticky = true; return f }

// enumerate walks p once per random draw k (0…63) and merges the walks: the
// verdict and masquerading must not depend on the draw; Endpoints lists
// every endpoint some draw reaches.
func enumerate(p Packet, walk func(Packet, int) (Fate, error)) (Fate, error) {
	seen := map[string]bool{}
	var fate Fate
	for k := 0; k < 64; k++ {
		f, err := walk(p, k)
		if err != nil {
			return Fate{}, err
		}
		if k > 0 && (f.Verdict != fate.Verdict || f.Masquerade != fate.Masquerade) {
			return Fate{}, fmt.Errorf("%s: fate depends on the random draw: %s vs %s", p, fate, f)
		}
		fate = f
		for _, ep := range f.Endpoints {
			seen[ep] = true
		}
	}
	fate.Endpoints = nil
	for ep := range seen {
		fate.Endpoints = append(fate.Endpoints, ep)
	}
	sort.Strings(fate.Endpoints)
	return fate, nil
}
