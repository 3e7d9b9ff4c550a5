package netlab

import (
	"strings"

	v1 "k8s.io/api/core/v1"
	discovery "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/svcplane/svcplane/internal/proxy/proxytest"
)

// The lab's IPv6 plan, beside the IPv4 one: client fd00:100::2 ↔ node
// fd00:100::1, b1 fd00:244:1::2 ↔ fd00:244:1::1, b2 fd00:244:2::3 ↔
// fd00:244:2::1; the client routes the Service range fd00:96::/64 via the
// node.
const (
	IPv6ClusterIP = "fd00:96::10"
	IPv6NodeIP    = "fd00:100::1"
	IPv6NodePort  = 30081
)

// AddIPv6 gives the lab's links IPv6 addresses (without duplicate address
// detection), routes and forwarding on the node, and no ICMPv6 rate limit
// (rejections are ICMPv6 errors).
func (l *Lab) AddIPv6() {
	l.t.Helper()
	l.In("node", "sysctl", "-qw", "net.ipv6.conf.all.forwarding=1")
	l.In("node", "sysctl", "-qw", "net.ipv6.icmp.ratelimit=0")
	for _, a := range []struct{ peer, node, addr string }{
		{"client", IPv6NodeIP + "/64", "fd00:100::2/64"},
		{"b1", "fd00:244:1::1/64", "fd00:244:1::2/64"},
		{"b2", "fd00:244:2::1/64", "fd00:244:2::3/64"},
	} {
		l.In("node", "ip", "addr", "add", a.node, "dev", "v"+a.peer, "nodad")
		l.In(a.peer, "ip", "addr", "add", a.addr, "dev", "vn", "nodad")
	}
	l.In("client", "ip", "-6", "route", "add", "fd00:96::/64", "via", IPv6NodeIP)
	if l.opts.RouteServicesVia != "" {
		l.In("node", "ip", "-6", "route", "add", "fd00:96::/64", "dev", l.opts.RouteServicesVia)
	}
	l.In("b1", "ip", "-6", "route", "add", "fd00:100::/64", "via", "fd00:244:1::1")
	l.In("b2", "ip", "-6", "route", "add", "fd00:100::/64", "via", "fd00:244:2::1")
}

// WaitIPv6 dials addr over TCP until one connection gets an answer (at
// most five tries). The veths' link-local addresses finish duplicate
// address detection a moment after they come up; until then neighbour
// discovery, and so the first connection, fails.
func (l *Lab) WaitIPv6(addr string) {
	l.t.Helper()
	for i := 0; i < 5; i++ {
		if out := l.HelperOut("client", "dial", "PROTO=tcp", "ADDR="+addr, "DIAL_N=1"); !strings.HasPrefix(out, "error") {
			return
		}
	}
}

// IPv6States are cluster states for the IPv6 plan: an IPv6-only Service
// web6 (ClusterIP IPv6ClusterIP port 80, NodePort IPv6NodePort, target
// 8080) with both backends ("v6-two"), b2 only ("v6-one") and no
// endpoints ("v6-none").
func IPv6States() map[string][]runtime.Object {
	web := proxytest.Svc("web6", IPv6ClusterIP, 80, proxytest.NodePort(IPv6NodePort))
	web.Spec.IPFamilies = []v1.IPFamily{v1.IPv6Protocol}
	slice := func(addrs ...string) *discovery.EndpointSlice {
		s := proxytest.Slice("web6", 8080, addrs...)
		s.AddressType = discovery.AddressTypeIPv6
		return s
	}
	return map[string][]runtime.Object{
		"v6-two":  {web, slice("fd00:244:1::2@"+proxytest.OtherNode, "fd00:244:2::3@"+proxytest.OtherNode)},
		"v6-one":  {web, slice("fd00:244:2::3@" + proxytest.OtherNode)},
		"v6-none": {web},
	}
}
