package nftables

import (
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	"github.com/svcplane/svcplane/internal/proxy/proxytest"
	"github.com/svcplane/svcplane/internal/proxy/proxytest/netlab"
)

// moreE2EStates are the states of TestKernelE2EPolicies. b1 (10.244.1.2)
// runs on the proxy's node, b2 (10.244.2.3) on another.
func moreE2EStates() map[string][]runtime.Object {
	const b1, b2 = "10.244.1.2@" + proxytest.NodeName, "10.244.2.3@" + proxytest.OtherNode
	local := func(s *v1.Service) { s.Spec.ExternalTrafficPolicy = v1.ServiceExternalTrafficPolicyLocal }
	sticky := func(s *v1.Service) {
		s.Spec.SessionAffinity = v1.ServiceAffinityClientIP
		s.Spec.SessionAffinityConfig = &v1.SessionAffinityConfig{ClientIP: &v1.ClientIPConfig{TimeoutSeconds: ptr.To[int32](60)}}
	}
	dns := func(eps ...string) []runtime.Object {
		svc := proxytest.Svc("dns", "10.96.0.53", 53)
		svc.Spec.Ports[0].Protocol = v1.ProtocolUDP
		slice := proxytest.Slice("dns", 8080, eps...)
		slice.Ports[0].Protocol = ptr.To(v1.ProtocolUDP)
		return []runtime.Object{svc, slice}
	}
	return map[string][]runtime.Object{
		"sticky":      {proxytest.Svc("web", "10.96.0.10", 80, sticky), proxytest.Slice("web", 8080, b1, b2)},
		"local":       {proxytest.Svc("web", "10.96.0.10", 80, proxytest.NodePort(30080), local), proxytest.Slice("web", 8080, b1, b2)},
		"local-none":  {proxytest.Svc("web", "10.96.0.10", 80, proxytest.NodePort(30080), local), proxytest.Slice("web", 8080, b2)},
		"terminating": {proxytest.Svc("web", "10.96.0.10", 80), proxytest.Slice("web", 8080, b1+",t", b2+",n")},
		"mixed":       {proxytest.Svc("web", "10.96.0.10", 80), proxytest.Slice("web", 8080, b1+",t", b2)},
		"dns-both":    dns(b1, b2),
		"dns-b1":      dns(b1),
		"dns-b2":      dns(b2),
	}
}

// TestKernelE2EPolicies sends real TCP and UDP through the rules for
// session affinity, externalTrafficPolicy Local, terminating endpoints
// and UDP conntrack cleanup after an endpoint goes.
func TestKernelE2EPolicies(t *testing.T) {
	l := newNetlab(t)

	l.HelperOut("node", "sync", "STEPS=sticky")
	if got := l.Dial("tcp", "10.96.0.10:80"); len(got) != 1 || got["error"] > 0 {
		t.Errorf("ClientIP affinity: every connection should reach one backend, got %v", got)
	}

	l.HelperOut("node", "sync", "STEPS=sticky,local")
	if got := l.Dial("tcp", "10.100.0.1:30080"); got["b1"] != 24 {
		t.Errorf("externalTrafficPolicy Local: NodePort should reach only the local endpoint, got %v", got)
	}
	out := l.HelperOut("client", "dial", "PROTO=tcp", "ADDR=10.100.0.1:30080", "DIAL_N=1")
	if !strings.Contains(out, "b1 10.100.0.2") {
		t.Errorf("externalTrafficPolicy Local should keep the client address, got %q", out)
	}
	if got := l.Dial("tcp", "10.96.0.10:80"); got["b1"] == 0 || got["b2"] == 0 {
		t.Errorf("externalTrafficPolicy Local: the ClusterIP still uses every endpoint, got %v", got)
	}
	l.HelperOut("node", "sync", "STEPS=local,local-none")
	out = l.HelperOut("client", "dial", "PROTO=tcp", "ADDR=10.100.0.1:30080", "DIAL_N=2")
	if strings.Count(out, "i/o timeout") != 2 {
		t.Errorf("externalTrafficPolicy Local without local endpoints should drop (time out), got %q", out)
	}

	l.HelperOut("node", "sync", "STEPS=terminating")
	if got := l.Dial("tcp", "10.96.0.10:80"); got["b1"] != 24 {
		t.Errorf("only a serving terminating endpoint: traffic should fall back to it, got %v", got)
	}
	l.HelperOut("node", "sync", "STEPS=terminating,mixed")
	if got := l.Dial("tcp", "10.96.0.10:80"); got["b2"] != 24 {
		t.Errorf("a ready endpoint exists: the terminating one gets nothing, got %v", got)
	}

	testUDPConntrackCleanup(t, l)
}

// testUDPConntrackCleanup: datagrams from one source port share one
// conntrack entry, so they keep going to the endpoint first chosen. When
// that endpoint leaves the Service, the sync's cleanup must delete the
// entry so the next datagram reaches the remaining endpoint.
func testUDPConntrackCleanup(t *testing.T, l *netlab.Lab) {
	l.HelperOut("node", "sync", "STEPS=dns-both")
	first := strings.Fields(l.HelperOut("client", "dial", "PROTO=udp", "ADDR=10.96.0.53:53", "DIAL_N=3", "SPORT=40000"))
	if len(first) != 3 || first[0] != first[1] || first[1] != first[2] || (first[0] != "b1" && first[0] != "b2") {
		t.Fatalf("UDP from one source port should stick to one endpoint, got %v", first)
	}
	other := map[string]string{"b1": "b2", "b2": "b1"}[first[0]]
	l.HelperOut("node", "sync", "STEPS=dns-both,dns-"+other)
	if got := strings.Fields(l.HelperOut("client", "dial", "PROTO=udp", "ADDR=10.96.0.53:53", "DIAL_N=1", "SPORT=40000")); len(got) != 1 || got[0] != other {
		t.Errorf("after %s left the Service, the same flow should reach %s, got %v", first[0], other, got)
	}
}
