package proxytest

import (
	"fmt"
	"net/netip"
	"strconv"
	"strings"
)

// matchRule evaluates a rule's matches; it returns whether they all hold,
// the target and the target's arguments. stat counts the chain's
// statistic matches so far: the one whose index is q.choice matches.
func (t *IPTTracer) matchRule(args []string, q *iptPkt, stat *int) (bool, string, []string, error) {
	ok := true
	neg := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		val := func() string {
			if i+1 < len(args) {
				i++
				return args[i]
			}
			return ""
		}
		var m bool
		switch a {
		case "!":
			neg = true
			continue
		case "-j", "-g":
			return ok, val(), args[i+1:], nil
		case "-m":
			val() // modules are implied by their options
			continue
		case "--comment", "--mode", "--seconds", "--mask":
			val()
			continue
		case "--reap", "--rsource":
			continue
		case "-s":
			m = addrIn(q.src, val())
		case "-d":
			m = addrIn(q.dst, val())
		case "-p":
			m = q.proto == val()
		case "--dport":
			m = strconv.Itoa(q.dport) == val()
		case "--ctstate":
			m = strings.Contains(val(), "NEW")
		case "--dst-type", "--src-type":
			addr := q.dst
			if a == "--src-type" {
				addr = q.src
			}
			m = val() == "LOCAL" && t.isLocal(addr)
		case "--mark":
			m = markMatches(q.mark, val())
		case "--match-set":
			name := val()
			m = t.inIPSet(name, strings.Split(val(), ","), q)
		case "--probability":
			val()
			m = *stat == q.choice
			*stat++
		case "--name":
			list := val()
			if i+1 < len(args) && args[i+1] == "--set" {
				i++
				if t.recent[list] == nil {
					t.recent[list] = map[netip.Addr]bool{}
				}
				t.recent[list][q.src] = true
				m = true
			} else if i+1 < len(args) && args[i+1] == "--rcheck" {
				i++
				m = t.recent[list][q.src]
			} else {
				return false, "", nil, fmt.Errorf("recent --name %s without --set/--rcheck", list)
			}
		default:
			return false, "", nil, fmt.Errorf("unknown option %q", a)
		}
		if m == neg {
			ok = false
		}
		neg = false
	}
	return ok, "", nil, nil
}

func (t *IPTTracer) isLocal(a netip.Addr) bool {
	for _, l := range t.local {
		if l == a {
			return true
		}
	}
	return false
}

func addrIn(a netip.Addr, s string) bool {
	if p, err := netip.ParsePrefix(s); err == nil {
		return p.Contains(a)
	}
	b, err := netip.ParseAddr(s)
	return err == nil && a == b
}

// markMatches evaluates "value/mask" (or "value") against a mark.
func markMatches(mark uint32, s string) bool {
	v, m, hasMask := strings.Cut(s, "/")
	val, _ := strconv.ParseUint(v, 0, 32)
	mask := uint64(0xffffffff)
	if hasMask {
		mask, _ = strconv.ParseUint(m, 0, 32)
	}
	return uint64(mark)&mask == val
}

// inIPSet reports whether the packet's dst/src fields (flags) are in an
// ipset entry: "ip", "port" (bitmap:port), "ip,proto:port",
// "ip,proto:port,ip" or "ip,proto:port,net".
func (t *IPTTracer) inIPSet(name string, flags []string, q *iptPkt) bool {
	for _, e := range t.sets[name] {
		parts := strings.Split(e, ",")
		if len(parts) != len(flags) {
			continue
		}
		ok := true
		for i, part := range parts {
			addr := q.dst
			if flags[i] == "src" {
				addr = q.src
			}
			switch {
			case i == 1:
				ok = ok && part == q.proto+":"+strconv.Itoa(q.dport)
			case len(parts) == 1 && !strings.ContainsAny(part, ".:"):
				ok = ok && part == strconv.Itoa(q.dport)
			default:
				ok = ok && addrIn(addr, part)
			}
		}
		if ok {
			return true
		}
	}
	return false
}
