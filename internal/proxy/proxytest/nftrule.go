package proxytest

import (
	"errors"
	"fmt"
	"net/netip"
	"strconv"
	"strings"
)

// runRule interprets one rule of the forms the nftables backend writes.
// It returns "continue" when the rule does not match or does not end the
// chain, else the verdict ("jump"/"goto" with a target).
func (t *NFTTracer) runRule(tok []string, q *pkt) (string, string, error) {
	for i := 0; i < len(tok); {
		rest := strings.Join(tok[i:], " ")
		switch {
		case strings.HasPrefix(rest, "ct state new"):
			i += 3
		case strings.HasPrefix(rest, "ct status dnat"):
			if !q.dnat {
				return "continue", "", nil
			}
			i += 3
		case strings.HasPrefix(rest, "fib daddr type local"):
			if !t.isLocal(q.dst) {
				return "continue", "", nil
			}
			i += 4
		case strings.HasPrefix(rest, "meta mark and "):
			m, _ := strconv.ParseUint(tok[i+3], 0, 32)
			want, _ := strconv.ParseUint(tok[i+5], 0, 32)
			if uint64(q.mark)&m != want {
				return "continue", "", nil
			}
			i += 6
		case strings.HasPrefix(rest, "meta mark set meta mark "):
			m, _ := strconv.ParseUint(tok[i+6], 0, 32)
			if tok[i+5] == "or" {
				q.mark |= uint32(m)
			} else {
				q.mark ^= uint32(m)
			}
			i += 7
		case tok[i] == "jump" || tok[i] == "goto":
			return tok[i], tok[i+1], nil
		case tok[i] == "return" || tok[i] == "drop" || tok[i] == "accept" || tok[i] == "reject":
			return tok[i], "", nil
		case tok[i] == "masquerade":
			q.masquerade = true
			return "accept", "", nil
		case tok[i] == "dnat":
			return "accept", "", t.dnat(tok[i+2:], q)
		case tok[i] == "update":
			set := strings.TrimPrefix(tok[i+1], "@")
			if t.dynamic[set] == nil {
				t.dynamic[set] = map[string]bool{}
			}
			t.dynamic[set][q.src.String()] = true
			i += 6
		default:
			n, ok, verdict, err := t.match(tok[i:], q)
			if err == errNoMatch {
				return "continue", "", nil
			}
			if err != nil || !ok {
				return "continue", "", err
			}
			if verdict != "" {
				f := strings.Fields(verdict)
				if len(f) == 1 {
					return f[0], "", nil
				}
				return f[0], f[1], nil
			}
			i += n
		}
	}
	return "continue", "", nil
}

func (t *NFTTracer) isLocal(a netip.Addr) bool {
	for _, l := range t.local {
		if l == a {
			return true
		}
	}
	return false
}

// errNoMatch: a protocol-specific field on a packet of another protocol
// (nft's implicit "meta l4proto" dependency fails).
var errNoMatch = errors.New("protocol dependency does not match")

// expr reads a concatenation ("ip daddr . th dport . numgen random mod 3")
// and returns its values and the number of tokens read.
func expr(tok []string, q *pkt) ([]string, int, error) {
	var vals []string
	i := 0
	for {
		if i+1 >= len(tok) {
			return nil, 0, fmt.Errorf("truncated expression %q", tok)
		}
		switch term := tok[i] + " " + tok[i+1]; term {
		case "ip daddr", "ip6 daddr":
			vals = append(vals, q.dst.String())
		case "ip saddr", "ip6 saddr":
			vals = append(vals, q.src.String())
		case "meta l4proto":
			vals = append(vals, q.proto)
		case "th dport":
			vals = append(vals, strconv.Itoa(q.dport))
		case "tcp dport", "udp dport", "sctp dport":
			if q.proto != tok[i] {
				return nil, 0, errNoMatch
			}
			vals = append(vals, strconv.Itoa(q.dport))
		case "numgen random":
			n, err := strconv.Atoi(tok[i+3])
			if err != nil {
				return nil, 0, err
			}
			vals = append(vals, strconv.Itoa(q.numgen%n))
			i += 2
		default:
			return nil, 0, fmt.Errorf("unknown expression %q", term)
		}
		i += 2
		if i >= len(tok) || tok[i] != "." {
			return vals, i, nil
		}
		i++
	}
}

// match evaluates "<expr> @set", "<expr> != @set", "<expr> != { a, b }",
// "<expr> != cidr", "<expr> vmap @map" and "<expr> vmap { k : v, ... }".
func (t *NFTTracer) match(tok []string, q *pkt) (int, bool, string, error) {
	vals, n, err := expr(tok, q)
	if err != nil {
		return 0, false, "", err
	}
	rest := tok[n:]
	switch {
	case len(rest) >= 2 && rest[0] == "vmap" && strings.HasPrefix(rest[1], "@"):
		v, ok := t.lookupMap(strings.TrimPrefix(rest[1], "@"), vals)
		return n + 2, ok, v, nil
	case len(rest) >= 2 && rest[0] == "vmap" && rest[1] == "{":
		for _, e := range strings.Split(strings.Trim(strings.Join(rest[1:], " "), "{} "), ",") {
			kv := strings.SplitN(e, ":", 2)
			if strings.TrimSpace(kv[0]) == vals[0] {
				return len(tok), true, strings.TrimSpace(kv[1]), nil
			}
		}
		return len(tok), false, "", nil
	case strings.HasPrefix(rest[0], "@"):
		return n + 1, t.inSet(strings.TrimPrefix(rest[0], "@"), vals), "", nil
	case rest[0] == "!=" && strings.HasPrefix(rest[1], "@"):
		return n + 2, !t.inSet(strings.TrimPrefix(rest[1], "@"), vals), "", nil
	case rest[0] == "!=" && rest[1] == "{":
		end := n + 2
		for ; tok[end] != "}"; end++ {
			if fieldMatches(strings.TrimSuffix(tok[end], ","), vals[0]) {
				return end, false, "", nil
			}
		}
		return end + 1, true, "", nil
	case rest[0] == "!=":
		return n + 2, !fieldMatches(rest[1], vals[0]), "", nil
	case len(vals) == 1 && !strings.ContainsAny(rest[0], "{}@"):
		// implicit equality: "meta l4proto tcp", "ip saddr 10.0.0.0/8"
		return n + 1, fieldMatches(rest[0], vals[0]), "", nil
	}
	return 0, false, "", fmt.Errorf("unknown match %q", rest)
}

func fieldMatches(pattern, val string) bool {
	if pattern == val {
		return true
	}
	if p, err := netip.ParsePrefix(pattern); err == nil {
		if a, err := netip.ParseAddr(val); err == nil {
			return p.Contains(a)
		}
	}
	return false
}

func keyMatches(key, vals []string) bool {
	if len(key) != len(vals) {
		return false
	}
	for i := range key {
		if !fieldMatches(key[i], vals[i]) {
			return false
		}
	}
	return true
}

func (t *NFTTracer) inSet(name string, vals []string) bool {
	if d := t.dynamic[name]; d != nil && len(vals) == 1 && d[vals[0]] {
		return true
	}
	s := t.table.Sets[name]
	if s == nil {
		return false
	}
	for _, e := range s.Elements {
		if keyMatches(e.Key, vals) {
			return true
		}
	}
	return false
}

func (t *NFTTracer) lookupMap(name string, vals []string) (string, bool) {
	m := t.table.Maps[name]
	if m == nil {
		return "", false
	}
	for _, e := range m.Elements {
		if keyMatches(e.Key, vals) {
			return strings.Join(e.Value, " . "), true
		}
	}
	return "", false
}

// dnat handles "dnat to <expr> map @m" and "dnat to addr:port".
func (t *NFTTracer) dnat(tok []string, q *pkt) error {
	var target string
	if len(tok) == 1 {
		target = tok[0]
	} else {
		vals, n, err := expr(tok, q)
		if err == errNoMatch {
			return nil
		}
		if err != nil {
			return err
		}
		v, ok := t.lookupMap(strings.TrimPrefix(tok[n+1], "@"), vals)
		if !ok {
			return nil // no mapping: the kernel drops nothing, packet goes on unNATed
		}
		parts := strings.Split(v, " . ")
		target = netip.AddrPortFrom(netip.MustParseAddr(parts[0]), mustPort(parts[1])).String()
	}
	ap, err := netip.ParseAddrPort(target)
	if err != nil {
		return err
	}
	q.dst, q.dport, q.dnat = ap.Addr(), int(ap.Port()), true
	return nil
}

func mustPort(s string) uint16 {
	n, _ := strconv.Atoi(s)
	return uint16(n)
}
