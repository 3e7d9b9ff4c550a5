package iptables

import (
	"fmt"
	"os/exec"
	"strings"
	"testing"

	"github.com/svcplane/svcplane/internal/proxy/proxytest/netlab"
)

// newNetlab builds the lab; VIPs are routed out of b2's link (this kernel
// has no dummy links) so packets the rules do not catch are forwarded.
func newNetlab(t *testing.T, tag string) *netlab.Lab {
	return netlab.New(t, netlab.Options{Tag: tag, RouteServicesVia: "vb2"})
}

// TestKernelE2E sends real traffic through the rules of both iptables
// variants in network namespaces.
func TestKernelE2E(t *testing.T) {
	for _, v := range []Variant{VariantLegacy, VariantNFT} {
		t.Run(string(v), func(t *testing.T) {
			if _, err := exec.LookPath("iptables-" + string(v) + "-restore"); err != nil {
				t.Fatalf("iptables-%s is not installed (apt-get install iptables): %v", v, err)
			}
			kernelE2E(t, v)
		})
	}
}

func kernelE2E(t *testing.T, v Variant) {
	l := newNetlab(t, string(v)[:3])
	variant := "VARIANT=" + string(v)
	save := func() string { return l.In("node", "iptables-"+string(v)+"-save") }
	l.HelperOut("node", "sync", variant, "STEPS=two")

	got := l.Dial("tcp", "10.96.0.10:80")
	if got["b1"] == 0 || got["b2"] == 0 || got["error"] > 0 {
		t.Errorf("ClusterIP TCP: want both backends, got %v", got)
	}
	if got := l.Dial("tcp", "10.100.0.1:30080"); got["b1"]+got["b2"] != 24 {
		t.Errorf("NodePort TCP: got %v", got)
	}
	// One source port throughout: the same conntrack entry, so an entry
	// left pointing at b1 after the endpoint moves would keep answering b1.
	if got := l.Dial("udp", "10.96.0.53:53", "SPORT=40053"); got["b1"] != 24 {
		t.Errorf("ClusterIP UDP: got %v\n%s", got, save())
	}
	out := l.HelperOut("client", "dial", "PROTO=tcp", "ADDR=10.100.0.1:30080")
	if !strings.Contains(out, " 10.244.") {
		t.Errorf("NodePort traffic should be masqueraded to the node: %s", out)
	}
	if out := l.HelperOut("client", "dial", "PROTO=tcp", "ADDR=10.96.0.10:80"); !strings.Contains(out, " 10.100.0.2") {
		t.Errorf("ClusterIP traffic from a pod-like client keeps its source (no cluster CIDR set): %s", out)
	}

	// A new process: full sync over the existing tables, then a partial
	// one removing a TCP endpoint and moving the UDP one (conntrack).
	l.HelperOut("node", "sync", variant, "STEPS=two,one")
	if got := l.Dial("tcp", "10.96.0.10:80"); got["b1"] != 24 {
		t.Errorf("after endpoint removal: got %v", got)
	}
	if got := l.Dial("tcp", "10.96.0.20:80"); got["b2"] != 24 {
		t.Errorf("Service added by a partial sync: got %v\n%s", got, save())
	}
	if got := l.Dial("udp", "10.96.0.53:53", "SPORT=40053"); got["b2"] != 24 {
		t.Errorf("UDP after the endpoint moved (stale conntrack entries?): got %v", got)
	}
	l.HelperOut("node", "sync", variant, "STEPS=one,none")
	if out := l.HelperOut("client", "dial", "PROTO=tcp", "ADDR=10.96.0.10:80"); strings.Count(out, "refused") != 24 {
		t.Errorf("no endpoints should be rejected (connection refused), got %s\n%s", out, save())
	}

	if s := save(); strings.Contains(s, "10.96.0.20") || strings.Contains(s, "10.96.0.53") {
		t.Errorf("rules of removed Services left:\n%s", s)
	}
	l.HelperOut("node", "cleanup", variant)
	if s := save(); strings.Contains(s, "KUBE-") {
		t.Errorf("--cleanup left chains:\n%s", s)
	}
}

// TestKernelE2EIPv6 runs ip6tables of both variants: ClusterIP and
// NodePort over IPv6, an endpoint removal through a partial sync, a reject
// (ICMPv6 port unreachable) without endpoints, and the cleanup.
func TestKernelE2EIPv6(t *testing.T) {
	for _, v := range []Variant{VariantLegacy, VariantNFT} {
		t.Run(string(v), func(t *testing.T) {
			l := newNetlab(t, "6"+string(v)[:3])
			l.AddIPv6()
			variant := "VARIANT=" + string(v)
			save := func() string { return l.In("node", "ip6tables-"+string(v)+"-save") }
			vip := "[" + netlab.IPv6ClusterIP + "]:80"
			l.HelperOut("node", "sync", variant, "FAMILY=6", "STEPS=v6-two")
			l.WaitIPv6(vip)
			if got := l.Dial("tcp", vip); got["b1"] == 0 || got["b2"] == 0 || got["error"] > 0 {
				t.Errorf("IPv6 ClusterIP: want both backends, got %v\n%s", got, save())
			}
			if got := l.Dial("tcp", fmt.Sprintf("[%s]:%d", netlab.IPv6NodeIP, netlab.IPv6NodePort)); got["b1"]+got["b2"] != 24 {
				t.Errorf("IPv6 NodePort: got %v", got)
			}
			l.HelperOut("node", "sync", variant, "FAMILY=6", "STEPS=v6-two,v6-one,v6-none")
			// Few dials: over veth the ICMPv6 error reaches the client while
			// connect still holds its socket (TcpExtLockDroppedIcmps), so
			// each refusal shows only on the SYN retransmitted after 1 s.
			if out := l.HelperOut("client", "dial", "PROTO=tcp", "ADDR="+vip, "DIAL_N=2"); strings.Count(out, "refused") != 2 {
				t.Errorf("no endpoints should be rejected (connection refused), got %s\n%s", out, save())
			}
			l.HelperOut("node", "sync", variant, "FAMILY=6", "STEPS=v6-none,v6-one")
			if got := l.Dial("tcp", vip); got["b2"] != 24 {
				t.Errorf("IPv6 after endpoints came back: got %v", got)
			}
			l.HelperOut("node", "cleanup", variant, "FAMILY=6")
			if s := save(); strings.Contains(s, "KUBE-") {
				t.Errorf("cleanup left chains:\n%s", s)
			}
		})
	}
}
