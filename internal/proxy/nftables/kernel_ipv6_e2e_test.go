package nftables

import (
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	discovery "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/svcplane/svcplane/internal/proxy/proxytest"
)

// ipv6E2EStates: a v6-only web Service with NodePort and both backends.
func ipv6E2EStates() map[string][]runtime.Object {
	web := proxytest.Svc("web6", "fd00:96::10", 80, proxytest.NodePort(30081))
	web.Spec.IPFamilies = []v1.IPFamily{v1.IPv6Protocol}
	slice := proxytest.Slice("web6", 8080, "fd00:244:1::2@"+proxytest.OtherNode, "fd00:244:2::3@"+proxytest.OtherNode)
	slice.AddressType = discovery.AddressTypeIPv6
	one := proxytest.Slice("web6", 8080, "fd00:244:2::3@"+proxytest.OtherNode)
	one.AddressType = discovery.AddressTypeIPv6
	return map[string][]runtime.Object{"v6-two": {web, slice}, "v6-one": {web, one}}
}

// TestKernelE2EIPv6 runs the ip6 table: ClusterIP and NodePort over IPv6,
// then an endpoint removal through a partial sync.
func TestKernelE2EIPv6(t *testing.T) {
	l := newNetlab(t)
	l.In("node", "sysctl", "-qw", "net.ipv6.conf.all.forwarding=1")
	for _, a := range []struct{ peer, node, addr string }{
		{"client", "fd00:100::1/64", "fd00:100::2/64"},
		{"b1", "fd00:244:1::1/64", "fd00:244:1::2/64"},
		{"b2", "fd00:244:2::1/64", "fd00:244:2::3/64"},
	} {
		l.In("node", "ip", "addr", "add", a.node, "dev", "v"+a.peer, "nodad")
		l.In(a.peer, "ip", "addr", "add", a.addr, "dev", "vn", "nodad")
	}
	l.In("client", "ip", "-6", "route", "add", "fd00:96::/64", "via", "fd00:100::1")
	l.In("b1", "ip", "-6", "route", "add", "fd00:100::/64", "via", "fd00:244:1::1")
	l.In("b2", "ip", "-6", "route", "add", "fd00:100::/64", "via", "fd00:244:2::1")

	l.HelperOut("node", "sync", "STEPS=v6-two", "FAMILY=6")
	// The veths' link-local addresses finish duplicate address detection
	// a moment after they come up; until then neighbour discovery (and so
	// the first connection) fails. Wait for one connection to get through.
	for i := 0; i < 5; i++ {
		if out := l.HelperOut("client", "dial", "PROTO=tcp", "ADDR=[fd00:96::10]:80", "DIAL_N=1"); !strings.HasPrefix(out, "error") {
			break
		}
	}
	if got := l.Dial("tcp", "[fd00:96::10]:80"); got["b1"] == 0 || got["b2"] == 0 || got["error"] > 0 {
		t.Errorf("IPv6 ClusterIP: want both backends, got %v", got)
	}
	if got := l.Dial("tcp", "[fd00:100::1]:30081"); got["b1"]+got["b2"] != 24 {
		t.Errorf("IPv6 NodePort: got %v", got)
	}
	l.HelperOut("node", "sync", "STEPS=v6-two,v6-one", "FAMILY=6")
	if got := l.Dial("tcp", "[fd00:96::10]:80"); got["b2"] != 24 {
		t.Errorf("IPv6 after endpoint removal: got %v", got)
	}
}
