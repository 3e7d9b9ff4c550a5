package dns

import (
	"fmt"
	"net"
	"testing"
	"time"

	mdns "github.com/miekg/dns"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// discardWriter is a ResponseWriter that packs the answer (as the real
// one does) and drops it.
type discardWriter struct{ mdns.ResponseWriter }

func (discardWriter) RemoteAddr() net.Addr {
	return &net.UDPAddr{IP: net.IPv4(10, 0, 0, 1), Port: 5353}
}
func (discardWriter) WriteMsg(m *mdns.Msg) error {
	_, err := m.Pack()
	return err
}
func (discardWriter) Write(b []byte) (int, error) { return len(b), nil }

// BenchmarkServeDNS answers A questions for 5,000 ClusterIP Services
// through ServeDNS (metrics, truncation, packing included).
func BenchmarkServeDNS(b *testing.B) {
	x := NewIndex()
	for i := range 5000 {
		x.SetService(&corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "bench", Name: fmt.Sprintf("svc-%d", i)},
			Spec: corev1.ServiceSpec{ClusterIP: fmt.Sprintf("10.96.%d.%d", i/250, i%250+1)}})
	}
	s := NewServer(NewResolver(x, "cluster.local", 5*time.Second), nil, nil)
	reqs := make([]*mdns.Msg, 5000)
	for i := range reqs {
		reqs[i] = new(mdns.Msg)
		reqs[i].SetQuestion(fmt.Sprintf("svc-%d.bench.svc.cluster.local.", i), mdns.TypeA)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s.ServeDNS(discardWriter{}, reqs[i%len(reqs)])
	}
}
