package userspace

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
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

// TestKernelE2E sends real TCP and UDP through the userspace proxy in
// network namespaces: from a client through the REDIRECT portal, from the
// node itself, and to the NodePort; one endpoint refuses and is retried.
func TestKernelE2E(t *testing.T) {
	if _, err := exec.LookPath("nft"); err != nil {
		t.Fatalf("the userspace e2e needs nft: %v", err)
	}
	l := newNetlab(t, "us")
	cmd := l.helper("node", "serve")
	stdout, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Signal(syscall.SIGTERM); _ = cmd.Wait() })
	if line, _ := bufio.NewReader(stdout).ReadString('\n'); line != "ready\n" {
		t.Fatalf("proxy did not start: %q", line)
	}
	got := l.dial("tcp", "10.96.0.10:80")
	if got["b1"] == 0 || got["b2"] == 0 || got["error"] > 0 {
		t.Errorf("ClusterIP TCP through the portal (a dead endpoint retried): got %v", got)
	}
	if got := l.dial("tcp", "10.100.0.1:30080"); got["b1"]+got["b2"] != 24 {
		t.Errorf("NodePort TCP: got %v", got)
	}
	out := l.helperOut("node", "dial", "PROTO=tcp", "ADDR=10.96.0.10:80")
	if strings.Count(out, "b1")+strings.Count(out, "b2") != 24 {
		t.Errorf("ClusterIP TCP from the node (output portal): %s", out)
	}
	if got := l.dial("udp", "10.96.0.53:53"); got["b1"] != 24 {
		t.Errorf("ClusterIP UDP: got %v", got)
	}
}
