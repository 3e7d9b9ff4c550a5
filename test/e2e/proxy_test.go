package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/svcplane/svcplane/internal/proxy/ipvs"
	"github.com/svcplane/svcplane/internal/proxy/proxytest/netlab"
)

// proxyManifest is a selector-less NodePort Service whose EndpointSlice
// lists the lab's two backends (b1 10.244.1.2, b2 10.244.2.3, echo on
// 8080).
const proxyManifest = `
apiVersion: v1
kind: Service
metadata: {name: web, namespace: default}
spec:
  type: NodePort
  clusterIP: 10.96.0.20
  ports: [{name: http, port: 80, targetPort: 8080, nodePort: 30080}]
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata:
  name: web-1
  namespace: default
  labels: {kubernetes.io/service-name: web}
addressType: IPv4
ports: [{name: http, port: 8080, protocol: TCP}]
endpoints:
- addresses: [10.244.1.2]
  conditions: {ready: true}
- addresses: [10.244.2.3]
  conditions: {ready: true}
`

// TestUpProxyModes runs `svcplane up` in the node namespace of a lab with
// each --proxy-mode and sends real traffic from the client namespace to a
// Service's ClusterIP and NodePort, answered by echo servers in two backend
// namespaces. On this kernel the ipvs mode falls back to iptables and says
// so. The kernel modes' rules outlive the process (traffic keeps flowing
// while it is down, as kube-proxy's), and `svcplane proxy --cleanup` then
// removes everything.
func TestUpProxyModes(t *testing.T) {
	requireRoot(t)
	for _, tool := range []string{"kubectl", "nft", "iptables-save"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s not installed: %v", tool, err)
		}
	}
	for _, mode := range []string{"nftables", "iptables", "ipvs", "userspace"} {
		t.Run(mode, func(t *testing.T) { upProxyMode(t, mode) })
	}
}

func upProxyMode(t *testing.T, mode string) {
	// Packets to the ClusterIP that no rule catches leave through b2's
	// link, as they would through a node's default route.
	l := netlab.New(t, netlab.Options{Tag: "up" + mode[:3], RouteServicesVia: "vb2"})
	node := &netns{name: l.NS("node")}
	dir := t.TempDir()
	up := node.start(t, bin, "up", "--data-dir", dir, "--proxy-mode", mode, "--node-name", "e2e-node",
		"--bind-address", "10.100.0.1", "--advertise-address", "10.100.0.1")
	kubectl := func(stdin string, args ...string) (string, error) {
		return node.kubectl(filepath.Join(dir, "kubeconfig"), stdin, args...)
	}
	node.waitReady(t, up, filepath.Join(dir, "kubeconfig"))
	if out, err := kubectl(proxyManifest, "apply", "-f", "-"); err != nil {
		t.Fatalf("kubectl apply: %v\n%s", err, out)
	}
	answers := func(addr string) map[string]int {
		out, _ := l.Helper("client", "dial", "PROTO=tcp", "ADDR="+addr).CombinedOutput()
		counts := map[string]int{}
		for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			if f := strings.Fields(line); len(f) > 0 {
				counts[f[0]]++
			}
		}
		return counts
	}
	both := func(addr string) func() bool {
		return func() bool { got := answers(addr); return got["b1"] > 0 && got["b2"] > 0 && got["b1"]+got["b2"] == 24 }
	}
	took := waitFor(t, "ClusterIP traffic to both backends", 30*time.Second, both("10.96.0.20:80"))
	t.Logf("%s: ClusterIP answered %v after the Service was applied", mode, took.Round(10*time.Millisecond))
	waitFor(t, "NodePort traffic to both backends", 10*time.Second, both("10.100.0.1:30080"))
	if mode == "ipvs" {
		// This machine's kernel has no IPVS: the mode falls back and says so.
		want := "Using the IPVS mode"
		if ipvs.KernelSupport() != nil {
			want = "falling back to the iptables mode"
		} else if _, err := exec.LookPath("ipset"); err != nil {
			want = "falling back to the iptables mode"
		}
		if log := up.log.String(); !strings.Contains(log, want) {
			t.Errorf("the ipvs mode should log %q:\n%s", want, tail(log))
		}
	}

	// One endpoint leaves: traffic follows.
	if out, err := kubectl("", "patch", "endpointslice", "web-1", "--type=json",
		"-p", `[{"op":"remove","path":"/endpoints/0"}]`); err != nil {
		t.Fatalf("kubectl patch: %v\n%s", err, out)
	}
	waitFor(t, "traffic to b2 only", 30*time.Second, func() bool { return answers("10.96.0.20:80")["b2"] == 24 })

	up.signal(t, syscall.SIGTERM)
	if mode != "userspace" {
		if got := answers("10.96.0.20:80"); got["b2"] != 24 {
			t.Errorf("traffic should keep flowing while the proxy is down, got %v", got)
		}
	}
	if out, err := node.exec(context.Background(), bin, "proxy", "--cleanup"); err != nil {
		t.Fatalf("svcplane proxy --cleanup: %v\n%s", err, out)
	}
	ruleset, _ := node.exec(context.Background(), "nft", "list", "ruleset")
	for _, left := range []string{"svcplane", "KUBE-SVC", "KUBE-SERVICES", "10.96.0.20"} {
		if strings.Contains(ruleset, left) {
			t.Errorf("--cleanup left %q:\n%s", left, ruleset)
		}
	}
	if _, err := os.Stat("/proc/net/ip_tables_names"); err == nil {
		if out, _ := node.exec(context.Background(), "iptables-legacy-save"); strings.Contains(out, "KUBE-") {
			t.Errorf("--cleanup left legacy chains:\n%s", out)
		}
	}
}
