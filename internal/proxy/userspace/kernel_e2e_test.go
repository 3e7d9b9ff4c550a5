package userspace

import (
	"bufio"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"

	"github.com/svcplane/svcplane/internal/proxy/proxytest/netlab"
)

// newNetlab builds the lab; VIPs are routed out of b2's link (this kernel
// has no dummy links) so packets the rules do not catch are forwarded.
func newNetlab(t *testing.T, tag string) *netlab.Lab {
	return netlab.New(t, netlab.Options{Tag: tag, Needs: []string{"nft"}, RouteServicesVia: "vb2"})
}

// TestKernelE2E sends real TCP and UDP through the userspace proxy in
// network namespaces: from a client through the REDIRECT portal, from the
// node itself, and to the NodePort; one endpoint refuses and is retried.
func TestKernelE2E(t *testing.T) {
	if _, err := exec.LookPath("nft"); err != nil {
		t.Fatalf("the userspace e2e needs nft: %v", err)
	}
	l := newNetlab(t, "us")
	cmd := l.Helper("node", "serve")
	stdout, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Signal(syscall.SIGTERM); _ = cmd.Wait() })
	if line, _ := bufio.NewReader(stdout).ReadString('\n'); line != "ready\n" {
		t.Fatalf("proxy did not start: %q", line)
	}
	got := l.Dial("tcp", "10.96.0.10:80")
	if got["b1"] == 0 || got["b2"] == 0 || got["error"] > 0 {
		t.Errorf("ClusterIP TCP through the portal (a dead endpoint retried): got %v", got)
	}
	if got := l.Dial("tcp", "10.100.0.1:30080"); got["b1"]+got["b2"] != 24 {
		t.Errorf("NodePort TCP: got %v", got)
	}
	out := l.HelperOut("node", "dial", "PROTO=tcp", "ADDR=10.96.0.10:80")
	if strings.Count(out, "b1")+strings.Count(out, "b2") != 24 {
		t.Errorf("ClusterIP TCP from the node (output portal): %s", out)
	}
	if got := l.Dial("udp", "10.96.0.53:53"); got["b1"] != 24 {
		t.Errorf("ClusterIP UDP: got %v", got)
	}
}
