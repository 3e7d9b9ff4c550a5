package iptext

import (
	"fmt"
	"strings"
)

// Split breaks a rule line into arguments. Double-quoted strings are one
// argument (quotes removed); a backslash escapes the next character.
func Split(line string) []string {
	var args []string
	var cur strings.Builder
	inQuote, have := false, false
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == '\\' && i+1 < len(line):
			i++
			cur.WriteByte(line[i])
			have = true
		case c == '"':
			inQuote, have = !inQuote, true
		case (c == ' ' || c == '\t') && !inQuote:
			if have {
				args = append(args, cur.String())
				cur.Reset()
				have = false
			}
		default:
			cur.WriteByte(c)
			have = true
		}
	}
	if have {
		args = append(args, cur.String())
	}
	return args
}

// Quote returns s as one argument: quoted when it contains spaces.
func Quote(s string) string {
	if s == "" || strings.ContainsAny(s, " \t\"") {
		return `"` + strings.ReplaceAll(s, `"`, `\"`) + `"`
	}
	return s
}

// Line is one meaningful line of restore or save text.
type Line struct {
	// Kind is one of "table", "chain", "rule", "commit".
	Kind string
	// Table is the table name (Kind "table").
	Table string
	// Chain is the declared chain (Kind "chain") or the chain of a rule.
	Chain string
	// Policy is a builtin chain's policy ("-" for user chains).
	Policy string
	// Op is a rule's operation: "-A", "-I", "-D", "-X", "-F", "-N".
	Op string
	// Rule is the rule text after the chain name.
	Rule string
}

// Parse reads restore or save text; comments and blank lines are skipped.
func Parse(text string) ([]Line, error) {
	var out []Line
	for n, raw := range strings.Split(text, "\n") {
		l := strings.TrimSpace(raw)
		switch {
		case l == "" || strings.HasPrefix(l, "#"):
			continue
		case strings.HasPrefix(l, "*"):
			out = append(out, Line{Kind: "table", Table: l[1:]})
		case strings.HasPrefix(l, ":"):
			f := strings.Fields(l[1:])
			if len(f) < 2 {
				return nil, fmt.Errorf("line %d: bad chain line %q", n+1, l)
			}
			out = append(out, Line{Kind: "chain", Chain: f[0], Policy: f[1]})
		case l == "COMMIT":
			out = append(out, Line{Kind: "commit"})
		case strings.HasPrefix(l, "-"):
			op, rest, _ := strings.Cut(l, " ")
			chain, rule, _ := strings.Cut(strings.TrimSpace(rest), " ")
			if chain == "" {
				return nil, fmt.Errorf("line %d: %s without a chain", n+1, op)
			}
			out = append(out, Line{Kind: "rule", Op: op, Chain: chain, Rule: strings.TrimSpace(rule)})
		default:
			return nil, fmt.Errorf("line %d: cannot parse %q", n+1, l)
		}
	}
	return out, nil
}

// Table is one table of save text: chains in order with their rules.
type Table struct {
	Name   string
	Order  []string
	Policy map[string]string
	Rules  map[string][]string
}

// ParseSave reads iptables-save output into tables by name.
func ParseSave(text string) (map[string]*Table, error) {
	lines, err := Parse(text)
	if err != nil {
		return nil, err
	}
	tables := map[string]*Table{}
	var cur *Table
	for _, l := range lines {
		switch l.Kind {
		case "table":
			cur = &Table{Name: l.Table, Policy: map[string]string{}, Rules: map[string][]string{}}
			tables[l.Table] = cur
		case "chain":
			if cur == nil {
				return nil, fmt.Errorf("chain %s outside a table", l.Chain)
			}
			cur.Order = append(cur.Order, l.Chain)
			cur.Policy[l.Chain] = l.Policy
			cur.Rules[l.Chain] = nil
		case "rule":
			if cur == nil || l.Op != "-A" {
				return nil, fmt.Errorf("unexpected %s %s in save text", l.Op, l.Chain)
			}
			cur.Rules[l.Chain] = append(cur.Rules[l.Chain], l.Rule)
		}
	}
	return tables, nil
}
