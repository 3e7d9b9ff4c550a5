package iptables

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/svcplane/svcplane/internal/proxy/iptables/iptext"
)

// builtinChains are each table's netfilter hooks.
var builtinChains = map[Table][]string{
	"raw":       {"PREROUTING", "OUTPUT"},
	TableMangle: {"PREROUTING", "INPUT", "FORWARD", "OUTPUT", "POSTROUTING"},
	TableNAT:    {"PREROUTING", "INPUT", "OUTPUT", "POSTROUTING"},
	TableFilter: {"INPUT", "FORWARD", "OUTPUT"},
}

// builtinTargets are the -j targets that are not chains.
var builtinTargets = []string{"ACCEPT", "DROP", "RETURN", "REJECT", "DNAT", "SNAT", "MASQUERADE", "MARK", "REDIRECT", "LOG", "CONNMARK"}

// Fake is an in-memory Interface. It enforces what the real tools
// refuse: rules in unknown tables or chains, jumps to missing chains,
// deleting builtin, non-empty or referenced chains, deleting rules that do
// not exist, tables left without COMMIT. Each COMMIT is applied when it is
// reached, as the real tools do: a restore failing in a later section
// keeps what the earlier ones wrote.
type Fake struct {
	mu     sync.Mutex
	tables map[Table]*fakeTable
	// Restores holds every restore input, in order.
	Restores [][]byte
	// FailRestore, when set, fails the next restore with this error.
	FailRestore error
	// FailCommit, when above 0, fails the next restore at its
	// FailCommit-th COMMIT: the sections before it stay applied.
	FailCommit int
}

type fakeTable struct {
	order []string // user chains in creation order
	rules map[string][]string
}

// NewFake returns a Fake with the builtin chains of every table.
func NewFake() *Fake {
	f := &Fake{tables: map[Table]*fakeTable{}}
	for t, chains := range builtinChains {
		ft := &fakeTable{rules: map[string][]string{}}
		for _, c := range chains {
			ft.rules[c] = nil
		}
		f.tables[t] = ft
	}
	return f
}

func (t *fakeTable) clone() *fakeTable {
	c := &fakeTable{order: slices.Clone(t.order), rules: make(map[string][]string, len(t.rules))}
	for k, v := range t.rules {
		c.rules[k] = slices.Clone(v)
	}
	return c
}

func isBuiltin(t Table, chain string) bool { return slices.Contains(builtinChains[t], chain) }

func normalize(rule string) string { return strings.Join(strings.Fields(rule), " ") }

// Variant implements Interface.
func (f *Fake) Variant() string { return "fake" }

// Restore implements Interface with --noflush semantics.
func (f *Fake) Restore(_ context.Context, data []byte) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.Restores = append(f.Restores, slices.Clone(data))
	if err := f.FailRestore; err != nil {
		f.FailRestore = nil
		return err
	}
	lines, err := iptext.Parse(string(data))
	if err != nil {
		return err
	}
	failAt := f.FailCommit
	f.FailCommit = 0
	commits := 0
	var cur *fakeTable
	var curName Table
	for _, l := range lines {
		switch l.Kind {
		case "table":
			if cur != nil {
				return fmt.Errorf("table %s: no COMMIT before *%s", curName, l.Table)
			}
			t := f.tables[Table(l.Table)]
			if t == nil {
				return fmt.Errorf("unknown table %q", l.Table)
			}
			cur, curName = t.clone(), Table(l.Table)
		case "commit":
			if cur == nil {
				return fmt.Errorf("COMMIT outside a table")
			}
			if commits++; commits == failAt {
				return fmt.Errorf("table %s: COMMIT %d failed (injected)", curName, commits)
			}
			f.tables[curName], cur = cur, nil // each COMMIT is its own transaction
		case "chain":
			if cur == nil {
				return fmt.Errorf("chain %s outside a table", l.Chain)
			}
			if _, ok := cur.rules[l.Chain]; !ok {
				cur.order = append(cur.order, l.Chain)
			}
			cur.rules[l.Chain] = nil
		case "rule":
			if cur == nil {
				return fmt.Errorf("%s %s outside a table", l.Op, l.Chain)
			}
			if err := cur.apply(curName, l.Op, l.Chain, normalize(l.Rule)); err != nil {
				return fmt.Errorf("table %s: %s %s %s: %w", curName, l.Op, l.Chain, l.Rule, err)
			}
		}
	}
	if cur != nil {
		return fmt.Errorf("table %s: missing COMMIT", curName)
	}
	return nil
}

// apply runs one rule operation on a table.
func (t *fakeTable) apply(table Table, op, chain, rule string) error {
	rules, exists := t.rules[chain]
	switch op {
	case "-N":
		if exists {
			return fmt.Errorf("chain already exists")
		}
		t.order = append(t.order, chain)
		t.rules[chain] = nil
		return nil
	}
	if !exists {
		return fmt.Errorf("no chain %q", chain)
	}
	if op == "-I" {
		if pos, rest, ok := strings.Cut(rule, " "); ok && pos == "1" {
			rule = rest
		}
	}
	switch op {
	case "-A", "-I":
		if target := jumpTarget(rule); target != "" && !slices.Contains(builtinTargets, target) {
			if _, ok := t.rules[target]; !ok || isBuiltin(table, target) {
				return fmt.Errorf("jump to unknown chain %q", target)
			}
		}
		if op == "-A" {
			t.rules[chain] = append(rules, rule)
		} else {
			t.rules[chain] = append([]string{rule}, rules...)
		}
	case "-D":
		i := slices.Index(rules, rule)
		if i < 0 {
			return fmt.Errorf("no such rule")
		}
		t.rules[chain] = slices.Delete(rules, i, i+1)
	case "-F":
		t.rules[chain] = nil
	case "-X":
		return t.deleteChain(table, chain)
	default:
		return fmt.Errorf("unsupported operation")
	}
	return nil
}

func (t *fakeTable) deleteChain(table Table, chain string) error {
	if isBuiltin(table, chain) {
		return fmt.Errorf("cannot delete builtin chain")
	}
	if len(t.rules[chain]) > 0 {
		return fmt.Errorf("chain is not empty")
	}
	for c, rules := range t.rules {
		for _, r := range rules {
			if jumpTarget(r) == chain {
				return fmt.Errorf("chain is referenced from %s", c)
			}
		}
	}
	delete(t.rules, chain)
	t.order = slices.DeleteFunc(t.order, func(s string) bool { return s == chain })
	return nil
}

// jumpTarget returns the -j/-g target of a rule, or "".
func jumpTarget(rule string) string {
	args := iptext.Split(rule)
	for i := 0; i+1 < len(args); i++ {
		if args[i] == "-j" || args[i] == "-g" || args[i] == "--jump" || args[i] == "--goto" {
			return args[i+1]
		}
	}
	return ""
}

// Save implements Interface.
func (f *Fake) Save(_ context.Context, table Table) ([]byte, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	t := f.tables[table]
	if t == nil {
		return nil, fmt.Errorf("unknown table %q", table)
	}
	return []byte(t.save(table)), nil
}

func (t *fakeTable) save(table Table) string {
	var b strings.Builder
	b.WriteString("*" + string(table) + "\n")
	chains := append(slices.Clone(builtinChains[table]), sortedUser(t.order)...)
	for _, c := range chains {
		policy := "-"
		if isBuiltin(table, c) {
			policy = "ACCEPT"
		}
		fmt.Fprintf(&b, ":%s %s [0:0]\n", c, policy)
	}
	for _, c := range chains {
		for _, r := range t.rules[c] {
			fmt.Fprintf(&b, "-A %s %s\n", c, r)
		}
	}
	b.WriteString("COMMIT\n")
	return b.String()
}

func sortedUser(order []string) []string {
	s := slices.Clone(order)
	slices.Sort(s)
	return s
}

// Dump returns iptables-save output of filter, nat and mangle.
func (f *Fake) Dump() string {
	var b strings.Builder
	for _, t := range []Table{TableFilter, TableNAT, TableMangle} {
		out, _ := f.Save(context.Background(), t)
		b.Write(out)
	}
	return b.String()
}

// ChainExists implements Interface.
func (f *Fake) ChainExists(_ context.Context, table Table, chain string) (bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	t := f.tables[table]
	if t == nil {
		return false, fmt.Errorf("unknown table %q", table)
	}
	_, ok := t.rules[chain]
	return ok, nil
}

// EnsureChain implements Interface.
func (f *Fake) EnsureChain(ctx context.Context, table Table, chain string) error {
	if ok, err := f.ChainExists(ctx, table, chain); ok || err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.tables[table].apply(table, "-N", chain, "")
}

// EnsureRule implements Interface.
func (f *Fake) EnsureRule(_ context.Context, table Table, chain, rule string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	t := f.tables[table]
	if t == nil {
		return fmt.Errorf("unknown table %q", table)
	}
	rule = normalize(rule)
	if slices.Contains(t.rules[chain], rule) {
		return nil
	}
	return t.apply(table, "-I", chain, rule)
}

// FlushAll empties every table, as `iptables -F; iptables -X` by another
// program would (the canary then goes missing).
func (f *Fake) FlushAll() {
	f.mu.Lock()
	defer f.mu.Unlock()
	for name := range f.tables {
		ft := &fakeTable{rules: map[string][]string{}}
		for _, c := range builtinChains[name] {
			ft.rules[c] = nil
		}
		f.tables[name] = ft
	}
}
