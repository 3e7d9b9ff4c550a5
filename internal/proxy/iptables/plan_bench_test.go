package iptables

import (
	"maps"
	"net/netip"
	"slices"
	"strconv"
	"testing"

	"github.com/svcplane/svcplane/internal/proxy"
)

func syntheticSnapshot(services, endpoints int) *proxy.Snapshot {
	s := &proxy.Snapshot{Family: proxy.IPv4, Services: map[proxy.ServicePortName]*proxy.ServicePort{},
		Endpoints: map[proxy.ServicePortName][]proxy.Endpoint{}, Node: proxy.Node{Name: "bench"}}
	next := uint32(10<<24 | 128<<16)
	a4 := func(v uint32) netip.Addr {
		return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)})
	}
	for i := 0; i < services; i++ {
		name := proxy.ServicePortName{Namespace: "bench", Name: "svc-" + strconv.Itoa(i), Port: "http", Protocol: proxy.TCP}
		s.Services[name] = &proxy.ServicePort{Name: name, Protocol: proxy.TCP, Port: 80, ClusterIP: a4(10<<24 | 96<<16 | uint32(i+1))}
		eps := make([]proxy.Endpoint, endpoints)
		for j := range eps {
			next++
			eps[j] = proxy.Endpoint{IP: a4(next), Port: 8080, Ready: true, Serving: true}
		}
		s.Endpoints[name] = eps
	}
	return s
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
