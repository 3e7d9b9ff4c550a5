package iptables

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// netlab is a set of network namespaces made by one test: a node running
// the rules, a client and two backends, joined by veth pairs. There is no
// default route anywhere; only the test's own addresses are used.
type netlab struct {
	t      *testing.T
	prefix string
	self   string
}

func (l *netlab) ns(name string) string { return l.prefix + name }

func (l *netlab) run(args ...string) string {
	l.t.Helper()
	out, err := exec.Command(args[0], args[1:]...).CombinedOutput()
	if err != nil {
		l.t.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func (l *netlab) in(ns string, args ...string) string {
	l.t.Helper()
	return l.run(append([]string{"ip", "netns", "exec", l.ns(ns)}, args...)...)
}

func (l *netlab) helper(ns, role string, env ...string) *exec.Cmd {
	cmd := exec.Command("ip", "netns", "exec", l.ns(ns), l.self, "-test.run=^$")
	cmd.Env = append(append(os.Environ(), roleEnv+"="+role), env...)
	return cmd
}

func (l *netlab) helperOut(ns, role string, env ...string) string {
	l.t.Helper()
	out, err := l.helper(ns, role, env...).CombinedOutput()
	if err != nil {
		l.t.Fatalf("%s in %s: %v\n%s", role, ns, err, out)
	}
	return string(out)
}

func newNetlab(t *testing.T, tag string) *netlab {
	if os.Geteuid() != 0 {
		t.Skip("kernel e2e needs root") // as the nftables e2e: go test ./... runs without root
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	l := &netlab{t: t, prefix: fmt.Sprintf("bk-%d-%s-", os.Getpid(), tag), self: self}
	for _, n := range []string{"node", "client", "b1", "b2"} {
		l.run("ip", "netns", "add", l.ns(n))
		t.Cleanup(func() { _ = exec.Command("ip", "netns", "del", l.ns(n)).Run() })
		l.in(n, "ip", "link", "set", "lo", "up")
	}
	l.in("node", "sysctl", "-qw", "net.ipv4.ip_forward=1")
	link := func(peer, nodeAddr, peerAddr string) {
		l.run("ip", "link", "add", "v"+peer, "netns", l.ns("node"), "type", "veth", "peer", "name", "vn", "netns", l.ns(peer))
		l.in("node", "ip", "addr", "add", nodeAddr, "dev", "v"+peer)
		l.in("node", "ip", "link", "set", "v"+peer, "up")
		l.in(peer, "ip", "addr", "add", peerAddr, "dev", "vn")
		l.in(peer, "ip", "link", "set", "vn", "up")
	}
	link("client", "10.100.0.1/24", "10.100.0.2/24")
	link("b1", "10.244.1.1/24", "10.244.1.2/24")
	link("b2", "10.244.2.1/24", "10.244.2.3/24")
	l.in("client", "ip", "route", "add", "10.96.0.0/16", "via", "10.100.0.1")
	// Service IPs are routed somewhere (as by a node's default route; this
	// kernel has no dummy links), so packets to a VIP without endpoints
	// reach the FORWARD REJECT.
	l.in("node", "ip", "route", "add", "10.96.0.0/16", "dev", "vb2")
	l.in("b1", "ip", "route", "add", "10.100.0.0/24", "via", "10.244.1.1")
	l.in("b2", "ip", "route", "add", "10.100.0.0/24", "via", "10.244.2.1")
	for _, b := range []string{"b1", "b2"} {
		cmd := l.helper(b, "echo", "NAME="+b)
		stdout, _ := cmd.StdoutPipe()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
		if line, _ := bufio.NewReader(stdout).ReadString('\n'); line != "ready\n" {
			t.Fatalf("echo server in %s did not start: %q", b, line)
		}
	}
	return l
}

// dial returns how many answers came from each backend (and "error").
func (l *netlab) dial(proto, addr string) map[string]int {
	out := l.helperOut("client", "dial", "PROTO="+proto, "ADDR="+addr)
	counts := map[string]int{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		counts[strings.Fields(line)[0]]++
	}
	return counts
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
	save := func() string { return l.in("node", "iptables-"+string(v)+"-save") }
	l.helperOut("node", "sync", variant, "STEPS=two")

	got := l.dial("tcp", "10.96.0.10:80")
	if got["b1"] == 0 || got["b2"] == 0 || got["error"] > 0 {
		t.Errorf("ClusterIP TCP: want both backends, got %v", got)
	}
	if got := l.dial("tcp", "10.100.0.1:30080"); got["b1"]+got["b2"] != 24 {
		t.Errorf("NodePort TCP: got %v", got)
	}
	if got := l.dial("udp", "10.96.0.53:53"); got["b1"] != 24 {
		t.Errorf("ClusterIP UDP: got %v\n%s", got, save())
	}
	out := l.helperOut("client", "dial", "PROTO=tcp", "ADDR=10.100.0.1:30080")
	if !strings.Contains(out, " 10.244.") {
		t.Errorf("NodePort traffic should be masqueraded to the node: %s", out)
	}
	if out := l.helperOut("client", "dial", "PROTO=tcp", "ADDR=10.96.0.10:80"); !strings.Contains(out, " 10.100.0.2") {
		t.Errorf("ClusterIP traffic from a pod-like client keeps its source (no cluster CIDR set): %s", out)
	}

	// A new process: full sync over the existing tables, then a partial
	// one removing a TCP endpoint and moving the UDP one (conntrack).
	l.helperOut("node", "sync", variant, "STEPS=two,one")
	if got := l.dial("tcp", "10.96.0.10:80"); got["b1"] != 24 {
		t.Errorf("after endpoint removal: got %v", got)
	}
	if got := l.dial("tcp", "10.96.0.20:80"); got["b2"] != 24 {
		t.Errorf("Service added by a partial sync: got %v\n%s", got, save())
	}
	if got := l.dial("udp", "10.96.0.53:53"); got["b2"] != 24 {
		t.Errorf("UDP after the endpoint moved (stale conntrack entries?): got %v", got)
	}
	l.helperOut("node", "sync", variant, "STEPS=one,none")
	if out := l.helperOut("client", "dial", "PROTO=tcp", "ADDR=10.96.0.10:80"); strings.Count(out, "refused") != 24 {
		t.Errorf("no endpoints should be rejected (connection refused), got %s\n%s", out, save())
	}

	if s := save(); strings.Contains(s, "10.96.0.20") || strings.Contains(s, "10.96.0.53") {
		t.Errorf("rules of removed Services left:\n%s", s)
	}
	l.helperOut("node", "cleanup", variant)
	if s := save(); strings.Contains(s, "KUBE-") {
		t.Errorf("--cleanup left chains:\n%s", s)
	}
}
