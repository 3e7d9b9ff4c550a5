package ipvs

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"net/netip"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/svcplane/svcplane/internal/proxy"
)

// IPSet applies `ipset restore` input ("create NAME TYPE -exist",
// "add NAME ENTRY", "del NAME ENTRY", "flush NAME", "destroy NAME").
type IPSet interface {
	Restore(ctx context.Context, text string) error
}

// IPSetCLI runs the ipset tool.
type IPSetCLI struct{}

// Restore implements IPSet.
func (IPSetCLI) Restore(ctx context.Context, text string) error {
	cmd := exec.CommandContext(ctx, "ipset", "restore")
	cmd.Stdin = strings.NewReader(text)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("ipset restore: %v: %s", err, strings.TrimSpace(stderr.String()))
	}
	return nil
}

// FakeIPSet keeps sets in memory and refuses what ipset refuses: adding
// to or deleting from a missing set, adding an entry twice or deleting a
// missing one (without -exist), destroying a missing set, creating a set
// again with another type or family (even with -exist), an entry that
// does not parse for the set's type or whose addresses are not of the
// set's family (an IPv6 address in a "family inet" set). A failed
// restore leaves the sets as they were.
type FakeIPSet struct {
	mu   sync.Mutex
	Sets map[string]map[string]bool
	// Kinds are each set's type and family: "hash:ip,port inet",
	// "bitmap:port".
	Kinds map[string]string
}

// NewFakeIPSet returns an empty FakeIPSet.
func NewFakeIPSet() *FakeIPSet {
	return &FakeIPSet{Sets: map[string]map[string]bool{}, Kinds: map[string]string{}}
}

// Restore implements IPSet.
func (f *FakeIPSet) Restore(_ context.Context, text string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	sets := map[string]map[string]bool{}
	for k, v := range f.Sets {
		c := make(map[string]bool, len(v))
		for e := range v {
			c[e] = true
		}
		sets[k] = c
	}
	kinds := maps.Clone(f.Kinds)
	if kinds == nil {
		kinds = map[string]string{}
	}
	for n, line := range strings.Split(strings.TrimSpace(text), "\n") {
		if err := fakeIPSetLine(sets, kinds, strings.Fields(line)); err != nil {
			return fmt.Errorf("line %d: %q: %w", n+1, line, err)
		}
	}
	f.Sets, f.Kinds = sets, kinds
	return nil
}

func fakeIPSetLine(sets map[string]map[string]bool, kinds map[string]string, f []string) error {
	if len(f) == 0 {
		return nil
	}
	exist := f[len(f)-1] == "-exist"
	if exist {
		f = f[:len(f)-1]
	}
	if len(f) < 2 {
		return errors.New("syntax error")
	}
	s, ok := sets[f[1]]
	switch {
	case f[0] == "create":
		kind, err := fakeSetKind(f[2:])
		if err != nil {
			return err
		}
		if ok && (!exist || kinds[f[1]] != kind) {
			return fmt.Errorf("set %s exists (as %s)", f[1], kinds[f[1]])
		}
		if !ok {
			sets[f[1]], kinds[f[1]] = map[string]bool{}, kind
		}
	case !ok:
		return fmt.Errorf("no set %s", f[1])
	case f[0] == "flush" && len(f) == 2:
		sets[f[1]] = map[string]bool{}
	case f[0] == "destroy" && len(f) == 2:
		delete(sets, f[1])
		delete(kinds, f[1])
	case (f[0] == "add" || f[0] == "del") && len(f) == 3:
		if err := fakeSetEntryValid(kinds[f[1]], f[2]); err != nil {
			return err
		}
		if f[0] == "add" && s[f[2]] && !exist {
			return fmt.Errorf("%s already in %s", f[2], f[1])
		}
		if f[0] == "del" && !s[f[2]] && !exist {
			return fmt.Errorf("%s not in %s", f[2], f[1])
		}
		if f[0] == "add" {
			s[f[2]] = true
		} else {
			delete(s, f[2])
		}
	default:
		return errors.New("cannot parse")
	}
	return nil
}

// fakeSetKind parses "TYPE [family inet|inet6] [range R] [hashsize N]
// [maxelem N]" into "TYPE inet|inet6" (hash types, inet by default) or
// "bitmap:port" (which takes no family).
func fakeSetKind(args []string) (string, error) {
	if len(args) == 0 {
		return "", errors.New("no set type")
	}
	typ, fam := args[0], ""
	for i := 1; i < len(args); i += 2 {
		if i+1 >= len(args) {
			return "", fmt.Errorf("option %s without a value", args[i])
		}
		switch v := args[i+1]; args[i] {
		case "family":
			if v != "inet" && v != "inet6" {
				return "", fmt.Errorf("family %s", v)
			}
			fam = v
		case "range", "hashsize", "maxelem":
		default:
			return "", fmt.Errorf("unknown option %s", args[i])
		}
	}
	switch typ {
	case "bitmap:port":
		if fam != "" {
			return "", errors.New("bitmap:port takes no family")
		}
		return typ, nil
	case "hash:ip,port", "hash:ip,port,ip", "hash:ip,port,net":
		if fam == "" {
			fam = "inet"
		}
		return typ + " " + fam, nil
	}
	return "", fmt.Errorf("unknown set type %s", typ)
}

// fakeSetEntryValid checks an entry against a set kind: "ip,proto:port"
// (then ",ip" or ",net" for the three-part types) with every address of
// the set's family, or a port for bitmap:port.
func fakeSetEntryValid(kind, e string) error {
	typ, fam, _ := strings.Cut(kind, " ")
	if typ == "bitmap:port" {
		if p, err := strconv.Atoi(e); err != nil || p < 0 || p > 65535 {
			return fmt.Errorf("%s: not a port", e)
		}
		return nil
	}
	parts := strings.Split(e, ",")
	if want := strings.Count(typ, ",") + 1; len(parts) != want {
		return fmt.Errorf("%s: want %d parts for %s", e, want, typ)
	}
	addrs := []string{parts[0]}
	proto, port, ok := strings.Cut(parts[1], ":")
	if n, err := strconv.Atoi(port); !ok || err != nil || n < 0 || n > 65535 || (proto != "tcp" && proto != "udp" && proto != "sctp") {
		return fmt.Errorf("%s: bad proto:port %s", e, parts[1])
	}
	if len(parts) == 3 {
		third := parts[2]
		if strings.HasSuffix(typ, ",net") {
			p, err := netip.ParsePrefix(third)
			if err != nil {
				return fmt.Errorf("%s: bad net: %w", e, err)
			}
			third = p.Addr().String()
		}
		addrs = append(addrs, third)
	}
	for _, s := range addrs {
		a, err := netip.ParseAddr(s)
		if err != nil {
			return fmt.Errorf("%s: %w", e, err)
		}
		if a.Is4() != (fam == "inet") {
			return fmt.Errorf("%s: address %s is not of the set's family %s", e, s, fam)
		}
	}
	return nil
}

// Entries returns each set's sorted entries.
func (f *FakeIPSet) Entries() map[string][]string {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := map[string][]string{}
	for name, s := range f.Sets {
		for e := range s {
			out[name] = append(out[name], e)
		}
		sort.Strings(out[name])
	}
	return out
}

// setsRestore renders the ipset input turning have into want, the sets
// of family (have nil: unknown, create and flush every set first).
func setsRestore(family proxy.IPFamily, have, want map[string]map[string]bool) string {
	var b strings.Builder
	bases := familySets(family)
	for _, name := range sortedNames(want) {
		if have == nil || have[name] == nil {
			fmt.Fprintf(&b, "create %s %s -exist\n", name, setCreateArgs(family, bases[name]))
			if have == nil {
				fmt.Fprintf(&b, "flush %s\n", name)
			}
		}
		for _, e := range sortedNames(want[name]) {
			if have == nil || !have[name][e] {
				fmt.Fprintf(&b, "add %s %s\n", name, e)
			}
		}
		if have != nil {
			for _, e := range sortedNames(have[name]) {
				if !want[name][e] {
					fmt.Fprintf(&b, "del %s %s\n", name, e)
				}
			}
		}
	}
	return b.String()
}

func sortedNames[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
