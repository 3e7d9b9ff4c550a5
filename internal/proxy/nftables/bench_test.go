package nftables

import (
	"context"
	"testing"

	"sigs.k8s.io/knftables"

	"github.com/svcplane/svcplane/internal/proxy"
	"github.com/svcplane/svcplane/internal/proxy/proxytest/synthetic"
)

// discardNFT renders scripts like the real CLI and throws them away, so
// benchmarks measure the Go side of a sync only.
type discardNFT struct{ *knftables.Fake }

func (discardNFT) Family() knftables.Family                          { return knftables.IPv4Family }
func (discardNFT) RunScript(context.Context, []byte) error           { return nil }
func (discardNFT) Run(context.Context, *knftables.Transaction) error { return nil }

// benchSnapshot is the cluster `svcplane bench proxy` syncs by default:
// endpoints spread over 100 nodes, the proxy's among them.
func benchSnapshot(services, endpoints int) *proxy.Snapshot {
	return synthetic.Snapshot(services, endpoints, 100)
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
	name := synthetic.Name("svc-0")
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
