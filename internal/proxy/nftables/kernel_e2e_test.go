package nftables

import (
	"strings"
	"testing"

	"github.com/svcplane/svcplane/internal/proxy/proxytest/netlab"
)

func newNetlab(t *testing.T) *netlab.Lab {
	return netlab.New(t, netlab.Options{Tag: "nft", Needs: []string{"nft"}})
}

func TestKernelE2E(t *testing.T) {
	l := newNetlab(t)
	l.HelperOut("node", "sync", "STEPS=two")

	got := l.Dial("tcp", "10.96.0.10:80")
	if got["b1"] == 0 || got["b2"] == 0 || got["error"] > 0 {
		t.Errorf("ClusterIP TCP: want both backends, got %v", got)
	}
	if got := l.Dial("tcp", "10.100.0.1:30080"); got["b1"]+got["b2"] != 24 {
		t.Errorf("NodePort TCP: got %v", got)
	}
	if got := l.Dial("udp", "10.96.0.53:53"); got["b1"] != 24 {
		t.Errorf("ClusterIP UDP: got %v", got)
		t.Log(l.In("node", "nft", "list", "ruleset"), l.In("node", "conntrack", "-L"))
	}
	// Client traffic comes from outside the (unset) cluster CIDR: only
	// NodePort traffic is masqueraded to the node address.
	out := l.HelperOut("client", "dial", "PROTO=tcp", "ADDR=10.100.0.1:30080")
	if !strings.Contains(out, " 10.244.") {
		t.Errorf("NodePort traffic should be masqueraded to the node: %s", out)
	}

	// A new process: full sync over the existing table, then an
	// incremental one removing an endpoint.
	l.HelperOut("node", "sync", "STEPS=two,one")
	if got := l.Dial("tcp", "10.96.0.10:80"); got["b1"] != 24 {
		t.Errorf("after endpoint removal: got %v", got)
	}
	l.HelperOut("node", "sync", "STEPS=one,none")
	if got := l.Dial("tcp", "10.96.0.10:80"); got["error"] != 24 {
		t.Errorf("no endpoints should reject: got %v", got)
	} else if out := l.HelperOut("client", "dial", "PROTO=tcp", "ADDR=10.96.0.10:80"); !strings.Contains(out, "refused") {
		t.Errorf("no endpoints should be refused (rejected), got %s", out)
	}

	l.HelperOut("node", "cleanup")
	if tables := l.In("node", "nft", "list", "tables"); strings.TrimSpace(tables) != "" {
		t.Errorf("--cleanup left tables: %s", tables)
	}
}
