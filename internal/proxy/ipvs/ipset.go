package ipvs

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"sort"
	"strings"
	"sync"
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
// missing one (without -exist), destroying a missing set. A failed
// restore leaves the sets as they were.
type FakeIPSet struct {
	mu   sync.Mutex
	Sets map[string]map[string]bool
}

// NewFakeIPSet returns an empty FakeIPSet.
func NewFakeIPSet() *FakeIPSet { return &FakeIPSet{Sets: map[string]map[string]bool{}} }

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
	for n, line := range strings.Split(strings.TrimSpace(text), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		exist := f[len(f)-1] == "-exist"
		if len(f) < 2 {
			return fmt.Errorf("line %d: %q", n+1, line)
		}
		s, ok := sets[f[1]]
		switch {
		case f[0] == "create":
			if ok && !exist {
				return fmt.Errorf("line %d: set %s exists", n+1, f[1])
			}
			if !ok {
				sets[f[1]] = map[string]bool{}
			}
		case !ok:
			return fmt.Errorf("line %d: no set %s", n+1, f[1])
		case f[0] == "flush":
			sets[f[1]] = map[string]bool{}
		case f[0] == "destroy":
			delete(sets, f[1])
		case f[0] == "add" && len(f) >= 3:
			if s[f[2]] && !exist {
				return fmt.Errorf("line %d: %s already in %s", n+1, f[2], f[1])
			}
			s[f[2]] = true
		case f[0] == "del" && len(f) >= 3:
			if !s[f[2]] && !exist {
				return fmt.Errorf("line %d: %s not in %s", n+1, f[2], f[1])
			}
			delete(s, f[2])
		default:
			return fmt.Errorf("line %d: cannot parse %q", n+1, line)
		}
	}
	f.Sets = sets
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

// setsRestore renders the ipset input turning have into want (have nil:
// unknown, create and flush every set first).
func setsRestore(have, want map[string]map[string]bool) string {
	var b strings.Builder
	for _, name := range sortedNames(want) {
		if have == nil || have[name] == nil {
			opts := ""
			if SetTypes[name] == "bitmap:port" {
				opts = " range 0-65535"
			}
			fmt.Fprintf(&b, "create %s %s%s -exist\n", name, SetTypes[name], opts)
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
