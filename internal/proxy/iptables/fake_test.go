package iptables

import (
	"context"
	"net/netip"
	"strings"
	"testing"
)

func mustAddr(s string) netip.Addr { return netip.MustParseAddr(s) }

func TestFakeEnforcesRestoreRules(t *testing.T) {
	ctx := context.Background()
	for _, bad := range []string{
		"*nat\n-A NOPE -j RETURN\nCOMMIT\n",                       // unknown chain
		"*nat\n:A - [0:0]\n-A A -j MISSING\nCOMMIT\n",             // jump to missing chain
		"*nat\n-X PREROUTING\nCOMMIT\n",                           // builtin
		"*nat\n:A - [0:0]\n",                                      // no COMMIT
		"*bogus\nCOMMIT\n",                                        // unknown table
		"*nat\n:A - [0:0]\n:B - [0:0]\n-A A -j B\n-X B\nCOMMIT\n", // referenced
		"*nat\n:A - [0:0]\n-A A -j RETURN\n-X A\nCOMMIT\n",        // not empty
		"*nat\n:A - [0:0]\n-D A -j RETURN\nCOMMIT\n",              // no such rule
	} {
		f := NewFake()
		if err := f.Restore(ctx, []byte(bad)); err == nil {
			t.Errorf("restore accepted:\n%s", bad)
		}
		if strings.Contains(f.Dump(), ":A ") {
			t.Errorf("failed restore changed the tables:\n%s", bad)
		}
	}
	f := NewFake()
	if err := f.Restore(ctx, []byte("*nat\n:A - [0:0]\n:B - [0:0]\n-A A -j B\nCOMMIT\n")); err != nil {
		t.Fatal(err)
	}
	// --noflush: a declared chain is flushed, others are kept.
	if err := f.Restore(ctx, []byte("*nat\n:A - [0:0]\n:B - [0:0]\n-X B\nCOMMIT\n")); err != nil {
		t.Fatal(err)
	}
	if ok, _ := f.ChainExists(ctx, TableNAT, "B"); ok {
		t.Error("B should be gone")
	}
	if err := f.EnsureRule(ctx, TableNAT, "PREROUTING", "-j A"); err != nil {
		t.Fatal(err)
	}
	if err := f.EnsureRule(ctx, TableNAT, "PREROUTING", "-j  A"); err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(f.Dump(), "-A PREROUTING -j A"); got != 1 {
		t.Errorf("EnsureRule duplicated the rule: %d", got)
	}
}
