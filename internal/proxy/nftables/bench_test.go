package nftables

import (
	"context"
	"net/netip"
	"strconv"
	"testing"

	"sigs.k8s.io/knftables"

	"github.com/svcplane/svcplane/internal/proxy"
)

// discardNFT renders scripts like the real CLI and throws them away, so
// benchmarks measure the Go side of a sync only.
type discardNFT struct{ *knftables.Fake }

func (discardNFT) Family() knftables.Family                          { return knftables.IPv4Family }
func (discardNFT) RunScript(context.Context, []byte) error           { return nil }
func (discardNFT) Run(context.Context, *knftables.Transaction) error { return nil }

func benchSnapshot(services, endpoints int) *proxy.Snapshot {
	s := &proxy.Snapshot{Family: proxy.IPv4, Services: map[proxy.ServicePortName]*proxy.ServicePort{},
		Endpoints: map[proxy.ServicePortName][]proxy.Endpoint{}, Node: proxy.Node{Name: "n"}}
	ip := func(v uint32) netip.Addr {
		return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)})
	}
	next := uint32(10<<24 | 128<<16)
	for i := 0; i < services; i++ {
		name := proxy.ServicePortName{Namespace: "b", Name: "s" + strconv.Itoa(i), Port: "p", Protocol: proxy.TCP}
		s.Services[name] = &proxy.ServicePort{Name: name, Protocol: proxy.TCP, Port: 80, ClusterIP: ip(10<<24 | 96<<16 | uint32(i+1))}
		eps := make([]proxy.Endpoint, endpoints)
		for j := range eps {
			next++
			eps[j] = proxy.Endpoint{IP: ip(next), Port: 8080, Ready: true, Serving: true, NodeName: "other"}
		}
		s.Endpoints[name] = eps
	}
	return s
}

// BenchmarkFullSync: planning and rendering a full sync of 5,000
// Services × 10 endpoints (nft itself not run).
func BenchmarkFullSync(b *testing.B) {
	snap := benchSnapshot(5000, 10)
	p := NewProxier(Config{Family: proxy.IPv4}, discardNFT{knftables.NewFake(knftables.IPv4Family, TableName)},
		func() *proxy.Snapshot { return snap })
	b.ReportAllocs()
	for b.Loop() {
		if err := p.SyncProxyRules(true); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPartialSync: one endpoint of one of 5,000 Services changes.
func BenchmarkPartialSync(b *testing.B) {
	base := benchSnapshot(5000, 10)
	name := proxy.ServicePortName{Namespace: "b", Name: "s0", Port: "p", Protocol: proxy.TCP}
	variants := [2]*proxy.Snapshot{}
	for k := range variants {
		s := *base
		s.Endpoints = map[proxy.ServicePortName][]proxy.Endpoint{}
		for n, eps := range base.Endpoints {
			s.Endpoints[n] = eps
		}
		eps := append([]proxy.Endpoint{}, base.Endpoints[name]...)
		eps[0].Port = uint16(9000 + k)
		s.Endpoints[name] = eps
		s.Changes = &proxy.ChangeSet{Ports: map[proxy.ServicePortName]struct{}{name: {}}}
		variants[k] = &s
	}
	cur := base
	p := NewProxier(Config{Family: proxy.IPv4}, discardNFT{knftables.NewFake(knftables.IPv4Family, TableName)},
		func() *proxy.Snapshot { return cur })
	if err := p.SyncProxyRules(true); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		cur = variants[i%2]
		i++
		if err := p.SyncProxyRules(false); err != nil {
			b.Fatal(err)
		}
	}
}
