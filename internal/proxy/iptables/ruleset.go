package iptables

import (
	"slices"
	"strings"
)

// writtenTables are the tables the planner fills, in restore order.
var writtenTables = []Table{TableFilter, TableNAT}

// Ruleset is a planned set of chains: for each table, chain name → rules
// (each rule is the text after "-A CHAIN"). It is a value the planner
// builds and the Proxier diffs; building it does no I/O.
type Ruleset struct {
	tables map[Table]map[string][]string
}

func newRuleset() *Ruleset {
	return &Ruleset{tables: map[Table]map[string][]string{TableFilter: {}, TableNAT: {}}}
}

// declare makes sure a chain exists (possibly empty).
func (r *Ruleset) declare(t Table, chain string) {
	if _, ok := r.tables[t][chain]; !ok {
		r.tables[t][chain] = nil
	}
}

// add appends a rule made of words to a chain.
func (r *Ruleset) add(t Table, chain string, words ...string) {
	kept := words[:0:0]
	for _, w := range words {
		if w != "" {
			kept = append(kept, w)
		}
	}
	r.tables[t][chain] = append(r.tables[t][chain], strings.Join(kept, " "))
}

// Chains returns the sorted chain names of a table.
func (r *Ruleset) Chains(t Table) []string { return sortedKeys(r.tables[t]) }

// Rules returns a chain's rules.
func (r *Ruleset) Rules(t Table, chain string) []string { return r.tables[t][chain] }

// NumChains counts the chains of all tables.
func (r *Ruleset) NumChains() int {
	n := 0
	for _, c := range r.tables {
		n += len(c)
	}
	return n
}

// restoreDiff is what one iptables-restore run changes in one table.
type restoreDiff struct {
	write  []string // chains declared (flushed) and filled
	delete []string // chains flushed and deleted
}

// diffTable compares a table of prev (nil: unknown, write everything) with
// desired; stale lists chains known to exist that the plan drops.
func diffTable(t Table, prev, desired *Ruleset, stale []string) restoreDiff {
	var d restoreDiff
	want := desired.tables[t]
	for _, name := range sortedKeys(want) {
		if prev != nil {
			if old, ok := prev.tables[t][name]; ok && slices.Equal(old, want[name]) {
				continue
			}
		}
		d.write = append(d.write, name)
	}
	if prev != nil {
		for _, name := range sortedKeys(prev.tables[t]) {
			if _, ok := want[name]; !ok {
				d.delete = append(d.delete, name)
			}
		}
	}
	for _, name := range stale {
		if _, ok := want[name]; !ok && !slices.Contains(d.delete, name) {
			d.delete = append(d.delete, name)
		}
	}
	return d
}

// writeRestore renders the iptables-restore --noflush input for the
// diffs: per table, every written or deleted chain is declared (which
// flushes it), then the written chains' rules, then the deletions. Tables
// with nothing to do are left out. It returns the text and the number of
// chains written or deleted.
func writeRestore(desired *Ruleset, diffs map[Table]restoreDiff) ([]byte, int) {
	var b strings.Builder
	n := 0
	for _, t := range writtenTables {
		d := diffs[t]
		if len(d.write) == 0 && len(d.delete) == 0 {
			continue
		}
		n += len(d.write) + len(d.delete)
		b.WriteString("*" + string(t) + "\n")
		for _, c := range d.write {
			b.WriteString(":" + c + " - [0:0]\n")
		}
		for _, c := range d.delete {
			b.WriteString(":" + c + " - [0:0]\n")
		}
		for _, c := range d.write {
			for _, r := range desired.tables[t][c] {
				b.WriteString("-A ")
				b.WriteString(c)
				b.WriteByte(' ')
				b.WriteString(r)
				b.WriteByte('\n')
			}
		}
		for _, c := range d.delete {
			b.WriteString("-X " + c + "\n")
		}
		b.WriteString("COMMIT\n")
	}
	if n == 0 {
		return nil, 0
	}
	return []byte(b.String()), n
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
