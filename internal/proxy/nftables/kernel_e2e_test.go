package nftables

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

// helper runs this test binary in a namespace in a helper role.
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

func newNetlab(t *testing.T) *netlab {
	if os.Geteuid() != 0 {
		t.Skip("kernel e2e needs root")
	}
	for _, bin := range []string{"ip", "nft"} {
		if _, err := exec.LookPath(bin); err != nil {
			t.Fatalf("kernel e2e needs %s: %v", bin, err)
		}
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	prefix := os.Getenv("SVCPLANE_E2E_NETNS_PREFIX") // keeps names apart on a shared machine
	if prefix == "" {
		prefix = "spx"
	}
	l := &netlab{t: t, prefix: fmt.Sprintf("%s%d-", prefix, os.Getpid()), self: self}
	for _, n := range []string{"node", "client", "b1", "b2"} {
		l.run("ip", "netns", "add", l.ns(n))
		t.Cleanup(func() { _ = exec.Command("ip", "netns", "del", l.ns(n)).Run() })
		l.in(n, "ip", "link", "set", "lo", "up")
	}
	l.in("node", "sysctl", "-qw", "net.ipv4.ip_forward=1")
	// Rejections are ICMP errors, which the kernel rate-limits to one a
	// second by default: each refused test connection would wait for it.
	l.in("node", "sysctl", "-qw", "net.ipv4.icmp_ratelimit=0")
	link := func(peer, nodeAddr, peerAddr string) {
		a, b := "v"+peer, "vn"
		l.run("ip", "link", "add", a, "netns", l.ns("node"), "type", "veth", "peer", "name", b, "netns", l.ns(peer))
		l.in("node", "ip", "addr", "add", nodeAddr, "dev", a)
		l.in("node", "ip", "link", "set", a, "up")
		l.in(peer, "ip", "addr", "add", peerAddr, "dev", b)
		l.in(peer, "ip", "link", "set", b, "up")
	}
	link("client", "10.100.0.1/24", "10.100.0.2/24")
	link("b1", "10.244.1.1/24", "10.244.1.2/24")
	link("b2", "10.244.2.1/24", "10.244.2.3/24")
	l.in("client", "ip", "route", "add", "10.96.0.0/16", "via", "10.100.0.1")
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

func TestKernelE2E(t *testing.T) {
	l := newNetlab(t)
	l.helperOut("node", "sync", "STEPS=two")

	got := l.dial("tcp", "10.96.0.10:80")
	if got["b1"] == 0 || got["b2"] == 0 || got["error"] > 0 {
		t.Errorf("ClusterIP TCP: want both backends, got %v", got)
	}
	if got := l.dial("tcp", "10.100.0.1:30080"); got["b1"]+got["b2"] != 24 {
		t.Errorf("NodePort TCP: got %v", got)
	}
	if got := l.dial("udp", "10.96.0.53:53"); got["b1"] != 24 {
		t.Errorf("ClusterIP UDP: got %v", got)
		t.Log(l.in("node", "nft", "list", "ruleset"), l.in("node", "conntrack", "-L"))
	}
	// Client traffic comes from outside the (unset) cluster CIDR: only
	// NodePort traffic is masqueraded to the node address.
	out := l.helperOut("client", "dial", "PROTO=tcp", "ADDR=10.100.0.1:30080")
	if !strings.Contains(out, " 10.244.") {
		t.Errorf("NodePort traffic should be masqueraded to the node: %s", out)
	}

	// A new process: full sync over the existing table, then an
	// incremental one removing an endpoint.
	l.helperOut("node", "sync", "STEPS=two,one")
	if got := l.dial("tcp", "10.96.0.10:80"); got["b1"] != 24 {
		t.Errorf("after endpoint removal: got %v", got)
	}
	l.helperOut("node", "sync", "STEPS=one,none")
	if got := l.dial("tcp", "10.96.0.10:80"); got["error"] != 24 {
		t.Errorf("no endpoints should reject: got %v", got)
	} else if out := l.helperOut("client", "dial", "PROTO=tcp", "ADDR=10.96.0.10:80"); !strings.Contains(out, "refused") {
		t.Errorf("no endpoints should be refused (rejected), got %s", out)
	}

	l.helperOut("node", "cleanup")
	if tables := l.in("node", "nft", "list", "tables"); strings.TrimSpace(tables) != "" {
		t.Errorf("--cleanup left tables: %s", tables)
	}
}
