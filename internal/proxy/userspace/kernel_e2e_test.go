package userspace

import (
	"bufio"
	"net"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"

	"github.com/svcplane/svcplane/internal/proxy"
	"github.com/svcplane/svcplane/internal/proxy/proxytest/netlab"
)

// newNetlab builds the lab; VIPs are routed out of b2's link (this kernel
// has no dummy links) so packets the rules do not catch are forwarded.
func newNetlab(t *testing.T, tag string) *netlab.Lab {
	if _, err := exec.LookPath("nft"); err != nil {
		t.Fatalf("the userspace e2e needs nft: %v", err)
	}
	return netlab.New(t, netlab.Options{Tag: tag, Needs: []string{"nft"}, RouteServicesVia: "vb2"})
}

// addIPv6 gives the lab's links IPv6 addresses (nodad: usable at once),
// mirroring the IPv4 plan: fd00:100::/64 node–client, fd00:244:N::/64
// node–bN, service VIPs in fd00:96::/112 routed like the IPv4 ones.
func addIPv6(l *netlab.Lab) {
	l.In("node", "sysctl", "-qw", "net.ipv6.conf.all.forwarding=1")
	l.In("node", "sysctl", "-qw", "net.ipv6.icmp.ratelimit=0")
	for _, link := range []struct{ peer, node, addr string }{
		{"client", "fd00:100::1/64", "fd00:100::2/64"},
		{"b1", "fd00:244:1::1/64", "fd00:244:1::2/64"},
		{"b2", "fd00:244:2::1/64", "fd00:244:2::3/64"},
	} {
		l.In("node", "ip", "-6", "addr", "add", link.node, "dev", "v"+link.peer, "nodad")
		l.In(link.peer, "ip", "-6", "addr", "add", link.addr, "dev", "vn", "nodad")
	}
	l.In("client", "ip", "-6", "route", "add", "fd00:96::/112", "via", "fd00:100::1")
	l.In("node", "ip", "-6", "route", "add", "fd00:96::/112", "dev", "vb2")
	l.In("b1", "ip", "-6", "route", "add", "fd00:100::/64", "via", "fd00:244:1::1")
	l.In("b2", "ip", "-6", "route", "add", "fd00:100::/64", "via", "fd00:244:2::1")
}

// serve starts the proxy in the node for families ("4", "6", "4,6").
func serve(t *testing.T, l *netlab.Lab, families string) {
	cmd := l.Helper("node", "serve", "FAMILIES="+families)
	stdout, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Signal(syscall.SIGTERM); _ = cmd.Wait() })
	if line, _ := bufio.NewReader(stdout).ReadString('\n'); line != "ready\n" {
		t.Fatalf("proxy did not start: %q", line)
	}
}

func hostPort(ip, port string) string { return net.JoinHostPort(ip, port) }

// checkTraffic sends real TCP and UDP of one family through the proxy:
// from the client through the REDIRECT portal (one endpoint refuses and
// is retried), from the node itself (output portal), and to the NodePort.
func checkTraffic(t *testing.T, l *netlab.Lab, fam proxy.IPFamily) {
	a := lab[fam]
	got := l.Dial("tcp", hostPort(a.web, "80"))
	if got["b1"] == 0 || got["b2"] == 0 || got["error"] > 0 {
		t.Errorf("IPv%d ClusterIP TCP through the portal (a dead endpoint retried): got %v", fam, got)
	}
	if got := l.Dial("tcp", hostPort(a.node, "30080")); got["b1"]+got["b2"] != 24 {
		t.Errorf("IPv%d NodePort TCP: got %v", fam, got)
	}
	out := l.HelperOut("node", "dial", "PROTO=tcp", "ADDR="+hostPort(a.web, "80"))
	if strings.Count(out, "b1")+strings.Count(out, "b2") != 24 {
		t.Errorf("IPv%d ClusterIP TCP from the node (output portal): %s", fam, out)
	}
	if got := l.Dial("udp", hostPort(a.dns, "53")); got["b1"] != 24 {
		t.Errorf("IPv%d ClusterIP UDP: got %v", fam, got)
	}
}

// checkRefused: service ports without endpoints are refused at once by
// the table (UDP: ICMP port unreachable, ECONNREFUSED on the connected
// socket; TCP: a reset), through the forward hook (from the client), the
// output hook (from the node) and the input hook (NodePorts).
func checkRefused(t *testing.T, l *netlab.Lab, fam proxy.IPFamily) {
	a := lab[fam]
	for _, c := range []struct{ ns, proto, addr string }{
		{"client", "udp", hostPort(a.void, "53")},
		{"node", "udp", hostPort(a.void, "53")},
		{"client", "udp", hostPort(a.node, "30053")},
		{"client", "tcp", hostPort(a.voidTCP, "80")},
		{"node", "tcp", hostPort(a.voidTCP, "80")},
		{"client", "tcp", hostPort(a.node, "30081")},
	} {
		out := l.HelperOut(c.ns, "dial", "PROTO="+c.proto, "ADDR="+c.addr, "DIAL_N=3")
		if n := strings.Count(out, "connection refused"); n != 3 {
			t.Errorf("IPv%d %s to %s from %s without endpoints: %d of 3 refused:\n%s", fam, c.proto, c.addr, c.ns, n, out)
		}
	}
}

// TestKernelE2E runs the IPv4 proxier alone.
func TestKernelE2E(t *testing.T) {
	l := newNetlab(t, "us")
	serve(t, l, "4")
	checkTraffic(t, l, proxy.IPv4)
	checkRefused(t, l, proxy.IPv4)
}

// TestKernelE2EDualStack runs an IPv4 and an IPv6 proxier side by side in
// one node, as a dual-stack node does: the same table name in the ip and
// ip6 families, the same NodePorts on the node's address of each family.
func TestKernelE2EDualStack(t *testing.T) {
	l := newNetlab(t, "us6")
	addIPv6(l)
	serve(t, l, "4,6")
	for _, fam := range []proxy.IPFamily{proxy.IPv6, proxy.IPv4} {
		checkTraffic(t, l, fam)
		checkRefused(t, l, fam)
	}
	if out := l.In("node", "nft", "list", "tables"); !strings.Contains(out, "table ip "+TableName) || !strings.Contains(out, "table ip6 "+TableName) {
		t.Errorf("tables: %s", out)
	}
}
