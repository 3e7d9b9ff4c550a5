package iptables

import (
	"slices"
	"strings"
)

// restorePlan is what one sync changes: chains to write (declare, which
// flushes, then fill), chains to delete, jump rules to insert. Service
// groups keep each service port's chains together so a chunked restore
// never splits one.
type restorePlan struct {
	groups [][]chainText         // nat chains of changed service ports
	shared map[Table][]chainText // shared chains to write
	edits  map[Table][]ruleEdit  // shared chains changed rule by rule
	delete map[Table][]string    // chains to flush and delete
	jumps  []jump                // rules to insert into builtin chains
}

// ruleEdit deletes and inserts Service rules of a shared chain, whose
// order among themselves does not matter (they match disjoint
// destinations); inserted rules go first.
type ruleEdit struct {
	chain       string
	del, insert []string
}

// maxRuleEdits: above this many changed rules a shared chain is rewritten.
const maxRuleEdits = 100

// chainText is a chain to write and its rules.
type chainText struct {
	name  string
	rules []string
}

// diffRulesets compares prev (nil: nothing known, write everything) with
// desired; stale lists chains found in the tables that may need deleting.
func diffRulesets(prev, desired *Ruleset, stale map[Table][]string) *restorePlan {
	rp := &restorePlan{shared: map[Table][]chainText{}, delete: map[Table][]string{}, edits: map[Table][]ruleEdit{}}
	for _, t := range writtenTables {
		for _, c := range sortedKeys(desired.shared[t]) {
			want := desired.shared[t][c]
			if prev == nil {
				rp.shared[t] = append(rp.shared[t], chainText{c, want})
				continue
			}
			old, ok := prev.shared[t][c]
			if ok && slices.Equal(old, want) {
				continue
			}
			if e, fine := ruleDiff(t, c, old, want, desired.fixed); ok && fine {
				if len(e.del)+len(e.insert) > 0 {
					rp.edits[t] = append(rp.edits[t], e)
				}
				continue
			}
			rp.shared[t] = append(rp.shared[t], chainText{c, want})
		}
	}
	gone := map[Table]map[string]bool{}
	drop := func(t Table, c string) {
		if gone[t] == nil {
			gone[t] = map[string]bool{}
		}
		gone[t][c] = true
	}
	for _, name := range desired.order {
		cur := desired.services[name]
		var old *svcRules
		if prev != nil {
			old = prev.services[name]
		}
		if old == cur {
			continue
		}
		curOwn := desired.ownOf(cur)[TableNAT]
		var oldOwn map[string][]string
		if old != nil {
			oldOwn = prev.ownOf(old)[TableNAT]
		}
		var group []chainText
		for _, c := range sortedKeys(curOwn) {
			if old == nil || !sameRules(oldOwn, c, curOwn[c]) {
				group = append(group, chainText{c, curOwn[c]})
			}
		}
		if len(group) > 0 {
			rp.groups = append(rp.groups, group)
		}
		for c := range oldOwn {
			if _, ok := curOwn[c]; !ok {
				drop(TableNAT, c)
			}
		}
	}
	if prev != nil {
		for name, old := range prev.services {
			if desired.services[name] == nil {
				for _, c := range old.ownChains(TableNAT) {
					drop(TableNAT, c)
				}
			}
		}
		for _, t := range writtenTables {
			for c := range prev.shared[t] {
				if _, ok := desired.shared[t][c]; !ok {
					drop(t, c)
				}
			}
		}
	}
	for t, names := range staleNotWanted(desired, stale) {
		for _, c := range names {
			drop(t, c)
		}
	}
	for t, names := range gone {
		rp.delete[t] = sortedKeys(names)
	}
	return rp
}

func sameRules(m map[string][]string, chain string, rules []string) bool {
	old, ok := m[chain]
	return ok && slices.Equal(old, rules)
}

// changes counts the chains written or deleted.
func (rp *restorePlan) changes() int {
	n := 0
	for _, g := range rp.groups {
		n += len(g)
	}
	for _, t := range writtenTables {
		n += len(rp.shared[t]) + len(rp.delete[t]) + len(rp.edits[t])
	}
	return n
}

// texts renders the iptables-restore --noflush inputs. With chunk > 0 the
// service groups go first, in restores of about chunk chains each (a group
// is never split), and the shared chains, deletions and jumps last; with
// chunk 0, or when the service chains fit in one chunk, everything is one
// restore: each restore costs a process and a kernel commit that validates
// the whole table (~60 ms at 5,000 Services), so a small partial sync pays
// it once. Empty restores are left out.
func (rp *restorePlan) texts(chunk int) [][]byte {
	var out [][]byte
	var b strings.Builder
	n := 0
	for _, g := range rp.groups {
		n += len(g)
	}
	if chunk > 0 && n <= chunk {
		chunk = 0
	}
	if chunk > 0 {
		// Service chains jump to KUBE-MARK-MASQ: it must exist first. Its
		// rules never change, so rewriting it alone is harmless.
		for i, c := range rp.shared[TableNAT] {
			if c.name == chainMarkMasq {
				writeTable(&b, TableNAT, []chainText{c}, nil, nil, nil)
				out = append(out, []byte(b.String()))
				b.Reset()
				rp.shared[TableNAT] = slices.Delete(slices.Clone(rp.shared[TableNAT]), i, i+1)
				break
			}
		}
		var pending []chainText
		flush := func() {
			if len(pending) > 0 {
				writeTable(&b, TableNAT, pending, nil, nil, nil)
				out = append(out, []byte(b.String()))
				b.Reset()
				pending = nil
			}
		}
		for _, g := range rp.groups {
			pending = append(pending, g...)
			if len(pending) >= chunk {
				flush()
			}
		}
		flush()
	}
	for _, t := range writtenTables {
		write := rp.shared[t]
		if t == TableNAT && chunk == 0 {
			write = append(slices.Clone(write), slices.Concat(rp.groups...)...)
		}
		var jumps []jump
		for _, j := range rp.jumps {
			if j.table == t {
				jumps = append(jumps, j)
			}
		}
		writeTable(&b, t, write, rp.edits[t], rp.delete[t], jumps)
	}
	if b.Len() > 0 {
		out = append(out, []byte(b.String()))
	}
	return out
}

// writeTable renders one table's section: declarations (flushing) of
// written and deleted chains, the written chains' rules, rule edits,
// deletions, then jump rules inserted at the top of builtin chains.
func writeTable(b *strings.Builder, t Table, write []chainText, edits []ruleEdit, del []string, jumps []jump) {
	if len(write) == 0 && len(edits) == 0 && len(del) == 0 && len(jumps) == 0 {
		return
	}
	b.WriteString("*" + string(t) + "\n")
	for _, c := range write {
		b.WriteString(":" + c.name + " - [0:0]\n")
	}
	for _, c := range del {
		b.WriteString(":" + c + " - [0:0]\n")
	}
	for _, c := range write {
		for _, r := range c.rules {
			b.WriteString("-A ")
			b.WriteString(c.name)
			b.WriteByte(' ')
			b.WriteString(r)
			b.WriteByte('\n')
		}
	}
	for _, e := range edits {
		for _, r := range e.del {
			b.WriteString("-D " + e.chain + " " + r + "\n")
		}
		for _, r := range e.insert {
			b.WriteString("-I " + e.chain + " 1 " + r + "\n")
		}
	}
	for _, c := range del {
		b.WriteString("-X " + c + "\n")
	}
	for i := len(jumps) - 1; i >= 0; i-- {
		b.WriteString("-I " + jumps[i].chain + " 1 " + jumps[i].rule + "\n")
	}
	b.WriteString("COMMIT\n")
}

// staleNotWanted filters the chains found in the tables down to those the
// plan does not have.
func staleNotWanted(desired *Ruleset, stale map[Table][]string) map[Table][]string {
	out := map[Table][]string{}
	for _, t := range writtenTables {
		if len(stale[t]) == 0 {
			continue
		}
		wanted := map[string]bool{}
		for _, c := range desired.Chains(t) {
			wanted[c] = true
		}
		for _, c := range stale[t] {
			if !wanted[c] {
				out[t] = append(out[t], c)
			}
		}
	}
	return out
}

// ruleDiff returns the rule edits turning old into want, and whether they
// are safe and small: no fixed rule changes and at most maxRuleEdits.
func ruleDiff(t Table, chain string, old, want []string, fixed map[string]bool) (ruleEdit, bool) {
	e := ruleEdit{chain: chain}
	count := map[string]int{}
	for _, r := range old {
		count[r]++
	}
	for _, r := range want {
		count[r]--
	}
	for _, r := range old {
		if count[r] > 0 {
			e.del = append(e.del, r)
			count[r]--
		}
	}
	for _, r := range want {
		if count[r] < 0 {
			e.insert = append(e.insert, r)
			count[r]++
		}
	}
	if len(e.del)+len(e.insert) > maxRuleEdits {
		return e, false
	}
	for _, r := range append(slices.Clone(e.del), e.insert...) {
		if fixed[fixedKey(t, chain, r)] {
			return e, false
		}
	}
	return e, true
}
