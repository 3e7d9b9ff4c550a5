package iptables

import (
	"strings"
	"testing"

	"github.com/svcplane/svcplane/internal/proxy"
	"github.com/svcplane/svcplane/internal/proxy/proxytest"
)

func configFor(pc proxytest.ProxyConfig) Config {
	cfg := Config{Family: proxy.IPv4, MasqueradeAll: pc.MasqueradeAll, ClusterCIDRs: pc.ClusterCIDRs()}
	return cfg
}

func runChecks(t *testing.T, fake *Fake, checks []proxytest.Check) {
	t.Helper()
	tracer, err := proxytest.NewIPTTracer(fake.Dump(), proxytest.NodeIP)
	if err != nil {
		t.Fatal(err)
	}
	if !proxytest.RunChecks(t, tracer, checks) {
		t.Logf("tables:\n%s", fake.Dump())
	}
}

func newTestProxier(cfg Config, fake *Fake, snap **proxy.Snapshot) *Proxier {
	return NewProxier(cfg, fake, func() *proxy.Snapshot { return *snap }, nil)
}

// TestScenariosFullSync installs each scenario with one full sync, checks
// its packet fates and compares the tables with
// testdata/scenarios/<scenario>.rules (go test -update rewrites them).
func TestScenariosFullSync(t *testing.T) {
	for _, sc := range proxytest.Scenarios(t) {
		t.Run(sc.Name, func(t *testing.T) {
			fake := NewFake()
			snap := proxytest.Snapshot(proxy.IPv4, sc.Objects...)
			if err := newTestProxier(configFor(sc.Config), fake, &snap).SyncProxyRules(true); err != nil {
				t.Fatal(err)
			}
			runChecks(t, fake, sc.Checks)
			proxytest.Golden(t, "scenarios/"+sc.File+".rules", fake.Dump())
		})
	}
}

// TestScenariosPartial reaches each scenario from an empty cluster through
// a partial restore, then removes everything again: the tables must end up
// as a fresh full sync of nothing leaves them.
func TestScenariosPartial(t *testing.T) {
	for _, sc := range proxytest.Scenarios(t) {
		t.Run(sc.Name, func(t *testing.T) {
			empty := proxytest.Snapshot(proxy.IPv4)
			cur := empty
			fake := NewFake()
			p := newTestProxier(configFor(sc.Config), fake, &cur)
			if err := p.SyncProxyRules(true); err != nil {
				t.Fatal(err)
			}
			emptyDump := fake.Dump()
			cur = proxytest.Snapshot(proxy.IPv4, sc.Objects...)
			if err := p.SyncProxyRules(false); err != nil {
				t.Fatal(err)
			}
			runChecks(t, fake, sc.Checks)
			cur = empty
			before := len(fake.Restores)
			if err := p.SyncProxyRules(false); err != nil {
				t.Fatal(err)
			}
			if got := fake.Dump(); got != emptyDump {
				t.Errorf("stale chains left after removing everything:\n%s\nwant:\n%s", got, emptyDump)
			}
			if len(fake.Restores) == before {
				return
			}
			if last := string(fake.Restores[len(fake.Restores)-1]); strings.Contains(last, "KUBE-POSTROUTING") {
				t.Errorf("partial restore rewrote unchanged chains:\n%s", last)
			}
		})
	}
}
