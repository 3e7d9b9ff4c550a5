package userspace

import (
	"fmt"
	"net/netip"
	"runtime"
	"testing"

	"github.com/svcplane/svcplane/internal/proxy"
)

// BenchmarkHeapPerServicePort reports the heap a Proxier holds per
// service port after a full sync of 5,000 (one TCP ClusterIP port with
// 10 endpoints each, listeners on loopback, no redirect table): the live
// heap after a collection, less the snapshot's, divided by the ports.
// `svcplane bench proxy --real --mode userspace` measures the process.
func BenchmarkHeapPerServicePort(b *testing.B) {
	const ports, perPort = 5000, 10
	snap := &proxy.Snapshot{Family: proxy.IPv4, Services: map[proxy.ServicePortName]*proxy.ServicePort{},
		Endpoints: map[proxy.ServicePortName][]proxy.Endpoint{}}
	for i := range ports {
		name := proxy.ServicePortName{Namespace: "default", Name: fmt.Sprintf("svc-%d", i), Port: "http", Protocol: proxy.TCP}
		snap.Services[name] = &proxy.ServicePort{Name: name, Protocol: proxy.TCP, Port: 80,
			ClusterIP: netip.AddrFrom4([4]byte{10, 96, byte(i >> 8), byte(i)})}
		eps := make([]proxy.Endpoint, perPort)
		for j := range eps {
			eps[j] = proxy.Endpoint{IP: netip.AddrFrom4([4]byte{10, byte(j + 1), byte(i >> 8), byte(i)}), Port: 8080, Ready: true, Serving: true}
		}
		snap.Endpoints[name] = eps
	}
	var held uint64
	for b.Loop() {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		p, err := NewProxier(Config{ListenAddr: netip.MustParseAddr("127.0.0.1")}, nil, func() *proxy.Snapshot { return snap }, nil)
		if err != nil {
			b.Fatal(err)
		}
		if err := p.SyncProxyRules(true); err != nil {
			b.Fatal(err)
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		held = after.HeapAlloc - before.HeapAlloc
		p.Close()
	}
	b.ReportMetric(float64(held)/ports, "B/port")
}
