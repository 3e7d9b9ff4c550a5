package e2e

import (
	"context"
	"fmt"
	"net/netip"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/svcplane/svcplane/internal/proxy/proxytest/netlab"
)

// TestUpClusterDNS runs `svcplane up` (nftables proxy) in a node
// namespace and asks the kube-dns ClusterIP with dig from another
// namespace, through the proxy, over UDP and TCP: the kubernetes Service
// answers, a new Service answers soon after its creation and a deleted
// one is forgotten (the times are logged), and names outside the cluster
// are refused (--dns-forward none: the test sends nothing off the lab).
func TestUpClusterDNS(t *testing.T) {
	requireRoot(t)
	l := netlab.New(t, netlab.Options{Tag: "dns", Needs: []string{"dig"}})
	node := &netns{name: l.NS("node")}
	client := &netns{name: l.NS("client")}
	dir := t.TempDir()
	node.start(t, bin, "up", "--data-dir", dir, "--proxy-mode", "nftables", "--node-name", "e2e-node",
		"--bind-address", "10.100.0.1", "--advertise-address", "10.100.0.1", "--dns-forward", "none")
	kubeconfig := filepath.Join(dir, "kubeconfig")
	kubectl := func(stdin string, args ...string) string {
		t.Helper()
		out, err := node.kubectl(kubeconfig, stdin, args...)
		if err != nil {
			t.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return out
	}
	dig := func(args ...string) string {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		out, _ := client.exec(ctx, "dig", append([]string{"@10.96.0.10", "+time=1", "+tries=1"}, args...)...)
		return out
	}
	short := func(args ...string) string { return strings.TrimSpace(dig(append(args, "+short")...)) }
	waitFor(t, "kube-dns answering through the proxy", 60*time.Second, func() bool {
		return short("kubernetes.default.svc.cluster.local") == "10.96.0.1"
	})
	if got := short("+tcp", "kubernetes.default.svc.cluster.local"); got != "10.96.0.1" {
		t.Errorf("over TCP: %q", got)
	}
	if got := short("_dns._udp.kube-dns.kube-system.svc.cluster.local", "SRV"); got != "0 100 53 kube-dns.kube-system.svc.cluster.local." {
		t.Errorf("SRV: %q", got)
	}
	if got := short("-x", "10.96.0.10"); got != "kube-dns.kube-system.svc.cluster.local." {
		t.Errorf("PTR: %q", got)
	}
	if got := dig("example.com"); !strings.Contains(got, "status: REFUSED") {
		t.Errorf("outside the zone with --dns-forward none:\n%s", got)
	}

	kubectl("", "create", "service", "clusterip", "fresh", "--tcp=80:80")
	created := time.Now()
	waitFor(t, "the new Service answering", 10*time.Second, func() bool {
		_, err := netip.ParseAddr(short("fresh.default.svc.cluster.local"))
		return err == nil
	})
	appeared := time.Since(created)
	kubectl("", "delete", "service", "fresh")
	deleted := time.Now()
	waitFor(t, "the deleted Service forgotten", 10*time.Second, func() bool {
		return strings.Contains(dig("fresh.default.svc.cluster.local"), "status: NXDOMAIN")
	})
	t.Logf("a new Service answered %v after kubectl create returned; a deleted one was NXDOMAIN %v after kubectl delete returned",
		appeared.Round(time.Millisecond), time.Since(deleted).Round(time.Millisecond))

	metrics, err := node.exec(context.Background(), "curl", "-s", "http://10.100.0.1:9153/metrics")
	if err != nil || !strings.Contains(metrics, `coredns_dns_requests_total{family="1",proto="udp"`) {
		t.Errorf("metrics: %v\n%s", err, firstLines(metrics, 5))
	}
}

func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	if len(lines) > n {
		lines = lines[:n]
	}
	return fmt.Sprint(strings.Join(lines, "\n"))
}
