package iptables

import (
	"maps"
	"net/netip"
	"slices"
	"testing"

	"github.com/svcplane/svcplane/internal/proxy"
	"github.com/svcplane/svcplane/internal/proxy/proxytest/synthetic"
)

// syntheticSnapshot is the shared benchmark cluster without node names,
// as the figures in the README.
func syntheticSnapshot(services, endpoints int) *proxy.Snapshot {
	return synthetic.Snapshot(services, endpoints, 0)
}

func BenchmarkPlan5000x10(b *testing.B) {
	snap := syntheticSnapshot(5000, 10)
	cfg := &Config{Family: proxy.IPv4}
	for b.Loop() {
		Plan(cfg, snap)
	}
}

func BenchmarkPlanFromOneChange5000x10(b *testing.B) {
	snap := syntheticSnapshot(5000, 10)
	cfg := &Config{Family: proxy.IPv4}
	prev := Plan(cfg, snap)
	for b.Loop() {
		cur := PlanFrom(cfg, snap, prev)
		diffRulesets(prev, cur, nil).texts(0)
	}
}

func BenchmarkDiffAndWriteFull5000x10(b *testing.B) {
	snap := syntheticSnapshot(5000, 10)
	cur := Plan(&Config{Family: proxy.IPv4}, snap)
	for b.Loop() {
		diffRulesets(nil, cur, nil).texts(0)
	}
}

// BenchmarkDiffAndWriteFullCompacted5000x10 is a full resync over an
// installed (compacted) plan: every port's chains are rendered again
// (ownOf), then written, and the chains listed for the stale check.
func BenchmarkDiffAndWriteFullCompacted5000x10(b *testing.B) {
	snap := syntheticSnapshot(5000, 10)
	cur := Plan(&Config{Family: proxy.IPv4}, snap)
	cur.compact()
	for b.Loop() {
		diffRulesets(nil, cur, map[Table][]string{TableNAT: cur.Chains(TableNAT)}).texts(0)
	}
}

// BenchmarkSyncPlanOneChange5000x10 is what a partial sync plans: one
// endpoint changed, named by the snapshot's ChangeSet.
func BenchmarkSyncPlanOneChange5000x10(b *testing.B) {
	snap := syntheticSnapshot(5000, 10)
	cfg := &Config{Family: proxy.IPv4}
	prev := Plan(cfg, snap)
	name := proxy.ServicePortName{Namespace: "bench", Name: "svc-0", Port: "http", Protocol: proxy.TCP}
	next := *snap
	next.Endpoints = maps.Clone(snap.Endpoints)
	eps := slices.Clone(next.Endpoints[name])
	eps[0].IP = netip.MustParseAddr("10.127.0.1")
	next.Endpoints[name] = eps
	next.Changes = &proxy.ChangeSet{Ports: map[proxy.ServicePortName]struct{}{name: {}}}
	for b.Loop() {
		cur := planFrom(cfg, &next, prev, next.Changes.Ports)
		diffRulesets(prev, cur, nil).texts(nftChunkChains)
	}
}
