package nftables

import (
	"testing"

	"sigs.k8s.io/knftables"

	"github.com/svcplane/svcplane/internal/proxy"
	"github.com/svcplane/svcplane/internal/proxy/proxytest"
)

func configFor(pc proxytest.ProxyConfig) Config {
	cfg := Config{Family: proxy.IPv4, MasqueradeAll: pc.MasqueradeAll, ClusterCIDRs: pc.ClusterCIDRs()}
	return cfg
}

func runChecks(t *testing.T, fake *knftables.Fake, checks []proxytest.Check) {
	t.Helper()
	tracer := proxytest.NewNFTTracer(fake, proxytest.NodeIP)
	if !proxytest.RunChecks(t, tracer, checks) {
		t.Logf("ruleset:\n%s", fake.Dump())
	}
}

// TestScenariosFullSync installs each scenario with one full sync, checks
// its packet fates and compares the ruleset with
// testdata/scenarios/<scenario>.nft (go test -update rewrites them).
func TestScenariosFullSync(t *testing.T) {
	for _, sc := range proxytest.Scenarios(t) {
		t.Run(sc.Name, func(t *testing.T) {
			fake := knftables.NewFake(knftables.IPv4Family, TableName)
			snap := proxytest.Snapshot(proxy.IPv4, sc.Objects...)
			p := NewProxier(configFor(sc.Config), fake, func() *proxy.Snapshot { return snap })
			if err := p.SyncProxyRules(true); err != nil {
				t.Fatal(err)
			}
			runChecks(t, fake, sc.Checks)
			proxytest.Golden(t, "scenarios/"+sc.File+".nft", fake.Dump())
		})
	}
}

// TestScenariosIncremental reaches each scenario from an empty cluster
// through an incremental sync (the same fates, the same ruleset as the full
// sync's golden file), then removes everything again: the table must end up
// exactly as a fresh full sync of nothing leaves it.
func TestScenariosIncremental(t *testing.T) {
	for _, sc := range proxytest.Scenarios(t) {
		t.Run(sc.Name, func(t *testing.T) {
			cfg := configFor(sc.Config)
			empty := proxytest.Snapshot(proxy.IPv4)
			cur := empty
			fake := knftables.NewFake(knftables.IPv4Family, TableName)
			p := NewProxier(cfg, fake, func() *proxy.Snapshot { return cur })
			if err := p.SyncProxyRules(true); err != nil {
				t.Fatal(err)
			}
			emptyDump := fake.Dump()
			cur = proxytest.Snapshot(proxy.IPv4, sc.Objects...)
			if err := p.SyncProxyRules(false); err != nil {
				t.Fatal(err)
			}
			runChecks(t, fake, sc.Checks)
			proxytest.Golden(t, "scenarios/"+sc.File+".nft", fake.Dump())
			cur = empty
			if err := p.SyncProxyRules(false); err != nil {
				t.Fatal(err)
			}
			if got := fake.Dump(); got != emptyDump {
				t.Errorf("stale objects left after removing everything:\n%s\nwant:\n%s", got, emptyDump)
			}
		})
	}
}
