package iptables

import (
	"slices"
	"strings"

	"github.com/svcplane/svcplane/internal/proxy"
)

// writtenTables are the tables the planner fills, in restore order.
var writtenTables = []Table{TableFilter, TableNAT, TableMangle}

// sharedChains are the fixed chains every Service adds rules to; all
// other chains belong to one service port.
var sharedChains = []string{chainServices, chainExternalServices, chainNodePorts, chainProxyFirewall,
	chainForward, chainPostrouting, chainMarkMasq, ChainCanary}

// chainSet maps table → chain → rules (each rule is the text after
// "-A CHAIN").
type chainSet map[Table]map[string][]string

func newChainSet() chainSet { return chainSet{} }

func (c chainSet) declare(t Table, chain string) {
	if c[t] == nil {
		c[t] = map[string][]string{}
	}
	if _, ok := c[t][chain]; !ok {
		c[t][chain] = nil
	}
}

// add appends a rule made of words (empty words are skipped).
func (c chainSet) add(t Table, chain string, words ...string) {
	c.declare(t, chain)
	kept := make([]string, 0, len(words))
	for _, w := range words {
		if w != "" {
			kept = append(kept, w)
		}
	}
	c[t][chain] = append(c[t][chain], strings.Join(kept, " "))
}

// sink is where the planner writes rules.
type sink interface {
	declare(t Table, chain string)
	add(t Table, chain string, words ...string)
}

// svcRules is one service port's part of the plan: its own chains and
// its rules in the shared chains. It is reused across syncs while the
// service port, its endpoints and the node stay the same.
type svcRules struct {
	key string // the port's name as a string: the sort key
	svc *proxy.ServicePort
	eps []proxy.Endpoint
	// own is the port's own chains as planned; nil once the plan is
	// installed (Ruleset.compact): Ruleset.ownOf renders them again from
	// svc and eps when a sync needs them.
	own chainSet
	// natChains are own's chain names (a port's chains are all nat
	// chains), kept by compact: a full sync's stale check and a deleted
	// port's chains need the names, not the rules.
	natChains []string
	// shared are the rules for shared chains, in planning order.
	shared []sharedRule
}

type sharedRule struct {
	table       Table
	chain, rule string
}

func (s *svcRules) declare(t Table, chain string) {
	if !slices.Contains(sharedChains, chain) {
		s.own.declare(t, chain)
	}
}

func (s *svcRules) add(t Table, chain string, words ...string) {
	if !slices.Contains(sharedChains, chain) {
		s.own.add(t, chain, words...)
		return
	}
	tmp := chainSet{}
	tmp.add(t, chain, words...)
	s.shared = append(s.shared, sharedRule{t, chain, tmp[t][chain][0]})
}

// Ruleset is a planned set of chains: the shared chains fully assembled
// and each service port's own chains. It is a value the planner builds
// and the Proxier diffs; building it does no I/O.
type Ruleset struct {
	cfg      *Config // what the port chains are rendered with (ownOf)
	shared   chainSet
	services map[proxy.ServicePortName]*svcRules
	order    []proxy.ServicePortName // sorted by key
	comments bool
	node     proxy.Node
	// fixed holds the shared chains' rules no Service owns (fixedKey):
	// their place in the chain matters, so edits never touch them.
	fixed map[string]bool
}

// ownOf is s's own chains: as planned, or rendered again (the same
// text: the planner is deterministic, and a plan only reuses a port's
// rules under the same node and comment setting) once r was compacted.
func (r *Ruleset) ownOf(s *svcRules) chainSet {
	if s.own != nil {
		return s.own
	}
	tmp := &svcRules{own: newChainSet()}
	p := &planner{cfg: r.cfg, r: tmp, node: r.node, comments: r.comments}
	p.servicePort(s.svc, s.eps)
	return tmp.own
}

// compact drops the port chains' rule text, which the Proxier keeps of
// the installed plan only to compare the ports a later sync changes (and
// to rewrite everything on a full sync): both render it again (ownOf).
// At 5,000 Services × 10 endpoints the text is most of the iptables
// mode's heap. The shared chains stay assembled.
func (r *Ruleset) compact() {
	for _, s := range r.services {
		if s.own != nil {
			s.natChains = sortedKeys(s.own[TableNAT])
			s.own = nil
		}
	}
}

// ownChains is s's own chain names in table t.
func (s *svcRules) ownChains(t Table) []string {
	if s.own != nil {
		return sortedKeys(s.own[t])
	}
	if t == TableNAT {
		return s.natChains
	}
	return nil
}

// Chains returns the sorted chain names of a table.
func (r *Ruleset) Chains(t Table) []string {
	var out []string
	for c := range r.shared[t] {
		out = append(out, c)
	}
	for _, s := range r.services {
		out = append(out, s.ownChains(t)...)
	}
	slices.Sort(out)
	return out
}

// Rules returns a chain's rules.
func (r *Ruleset) Rules(t Table, chain string) []string {
	if rules, ok := r.shared[t][chain]; ok {
		return rules
	}
	for _, s := range r.services {
		if rules, ok := r.ownOf(s)[t][chain]; ok {
			return rules
		}
	}
	return nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
