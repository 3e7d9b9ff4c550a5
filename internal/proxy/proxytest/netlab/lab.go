package netlab

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// RoleEnv names the helper role a re-executed test binary plays.
const RoleEnv = "SVCPLANE_E2E_ROLE"

// PrefixEnv, when set, starts every namespace name (keeps the names of
// several people's runs apart on one machine).
const PrefixEnv = "SVCPLANE_E2E_NETNS_PREFIX"

// Options shape a lab.
type Options struct {
	// Tag goes into the namespace names.
	Tag string
	// Needs are the commands the test needs besides ip (a missing one
	// fails the test with its name).
	Needs []string
	// RouteServicesVia routes 10.96.0.0/16 (and fd00:96::/64 after
	// AddIPv6) on the node out of this link (as a node's default route
	// would), so that packets to a VIP the rules do not catch are forwarded
	// rather than dropped as unroutable.
	RouteServicesVia string
}

// Lab is one test's namespaces.
type Lab struct {
	t      testing.TB
	prefix string
	self   string
	opts   Options
}

// New builds the lab and starts an echo server in each backend. Without
// root the test is skipped (go test ./... runs unprivileged); CI runs as
// root.
func New(t testing.TB, o Options) *Lab {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("kernel e2e needs root")
	}
	for _, bin := range append([]string{"ip"}, o.Needs...) {
		if _, err := exec.LookPath(bin); err != nil {
			t.Fatalf("kernel e2e needs %s: %v", bin, err)
		}
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	prefix := os.Getenv(PrefixEnv)
	if prefix == "" {
		prefix = "spx"
	}
	l := &Lab{t: t, prefix: fmt.Sprintf("%s%d-%s-", prefix, os.Getpid(), o.Tag), self: self, opts: o}
	for _, n := range []string{"node", "client", "b1", "b2"} {
		l.Run("ip", "netns", "add", l.NS(n))
		t.Cleanup(func() { _ = exec.Command("ip", "netns", "del", l.NS(n)).Run() })
		l.In(n, "ip", "link", "set", "lo", "up")
	}
	l.In("node", "sysctl", "-qw", "net.ipv4.ip_forward=1")
	// Rejections are ICMP errors, which the kernel rate-limits to one a
	// second by default: each refused test connection would wait for it.
	l.In("node", "sysctl", "-qw", "net.ipv4.icmp_ratelimit=0")
	l.link("client", "10.100.0.1/24", "10.100.0.2/24")
	l.link("b1", "10.244.1.1/24", "10.244.1.2/24")
	l.link("b2", "10.244.2.1/24", "10.244.2.3/24")
	l.In("client", "ip", "route", "add", "10.96.0.0/16", "via", "10.100.0.1")
	if o.RouteServicesVia != "" {
		l.In("node", "ip", "route", "add", "10.96.0.0/16", "dev", o.RouteServicesVia)
	}
	l.In("b1", "ip", "route", "add", "10.100.0.0/24", "via", "10.244.1.1")
	l.In("b2", "ip", "route", "add", "10.100.0.0/24", "via", "10.244.2.1")
	for _, b := range []string{"b1", "b2"} {
		l.startEcho(b)
	}
	return l
}

// link joins peer to the node: v<peer> on the node, vn in the peer.
func (l *Lab) link(peer, nodeAddr, peerAddr string) {
	a, b := "v"+peer, "vn"
	l.Run("ip", "link", "add", a, "netns", l.NS("node"), "type", "veth", "peer", "name", b, "netns", l.NS(peer))
	l.In("node", "ip", "addr", "add", nodeAddr, "dev", a)
	l.In("node", "ip", "link", "set", a, "up")
	l.In(peer, "ip", "addr", "add", peerAddr, "dev", b)
	l.In(peer, "ip", "link", "set", b, "up")
}

func (l *Lab) startEcho(ns string) {
	cmd := l.Helper(ns, "echo", "NAME="+ns)
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		l.t.Fatal(err)
	}
	l.t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	if line, _ := bufio.NewReader(stdout).ReadString('\n'); line != "ready\n" {
		l.t.Fatalf("echo server in %s did not start: %q", ns, line)
	}
}

// NS is the full name of one of the lab's namespaces.
func (l *Lab) NS(name string) string { return l.prefix + name }

// Run runs a command on the host and fails the test if it fails.
func (l *Lab) Run(args ...string) string {
	l.t.Helper()
	out, err := exec.Command(args[0], args[1:]...).CombinedOutput()
	if err != nil {
		l.t.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// In runs a command in one of the lab's namespaces.
func (l *Lab) In(ns string, args ...string) string {
	l.t.Helper()
	return l.Run(append([]string{"ip", "netns", "exec", l.NS(ns)}, args...)...)
}

// Helper returns the test binary re-executed in ns in a helper role.
func (l *Lab) Helper(ns, role string, env ...string) *exec.Cmd {
	cmd := exec.Command("ip", "netns", "exec", l.NS(ns), l.self, "-test.run=^$")
	cmd.Env = append(append(os.Environ(), RoleEnv+"="+role), env...)
	return cmd
}

// HelperOut runs a helper role to its end and returns its output.
func (l *Lab) HelperOut(ns, role string, env ...string) string {
	l.t.Helper()
	out, err := l.Helper(ns, role, env...).CombinedOutput()
	if err != nil {
		l.t.Fatalf("%s in %s: %v\n%s", role, ns, err, out)
	}
	return string(out)
}

// Dial dials addr from the client (the "dial" role) and counts the answers
// by backend name ("error" for failures).
func (l *Lab) Dial(proto, addr string, env ...string) map[string]int {
	l.t.Helper()
	out := l.HelperOut("client", "dial", append([]string{"PROTO=" + proto, "ADDR=" + addr}, env...)...)
	counts := map[string]int{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if f := strings.Fields(line); len(f) > 0 {
			counts[f[0]]++
		}
	}
	return counts
}
