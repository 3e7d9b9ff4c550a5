package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/svcplane/svcplane/internal/proxy/proxytest/netlab"
)

// kubeProxyNode is the Node upstream kube-proxy runs as: its InternalIP is
// the lab node's address, where NodePorts answer.
const kubeProxyNode = `
apiVersion: v1
kind: Node
metadata: {name: e2e-node}
status:
  addresses: [{type: InternalIP, address: 10.100.0.1}]
`

// upstreamKubeProxy is Kubernetes' own kube-proxy, built by
// ../shared/tools/build-upstream.sh (or named by SVCPLANE_KUBE_PROXY).
func upstreamKubeProxy(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("SVCPLANE_KUBE_PROXY"); p != "" {
		return p
	}
	dir := os.Getenv("UPSTREAM_BIN")
	if dir == "" {
		cache := os.Getenv("XDG_CACHE_HOME")
		if cache == "" {
			home, _ := os.UserHomeDir()
			cache = filepath.Join(home, ".cache")
		}
		dir = filepath.Join(cache, "svcplane-upstream", "v1.36.3")
	}
	p := filepath.Join(dir, "kube-proxy")
	if _, err := os.Stat(p); err != nil {
		t.Skipf("no upstream kube-proxy at %s (build it with ../shared/tools/build-upstream.sh, or set SVCPLANE_KUBE_PROXY)", p)
	}
	return p
}

// TestUpstreamKubeProxy runs Kubernetes' own kube-proxy (v1.36, stock
// KubeProxyConfiguration in the nftables and iptables modes, the
// system:node-proxier identity) against `svcplane server` in a lab's node
// namespace, and sends TCP from the client namespace through a ClusterIP
// and a NodePort to the two backends.
func TestUpstreamKubeProxy(t *testing.T) {
	requireRoot(t)
	kubeProxy := upstreamKubeProxy(t)
	for _, tool := range []string{"kubectl", "nft", "iptables"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s not installed: %v", tool, err)
		}
	}
	for _, mode := range []string{"nftables", "iptables"} {
		t.Run(mode, func(t *testing.T) { upstreamKubeProxyMode(t, kubeProxy, mode) })
	}
}

func upstreamKubeProxyMode(t *testing.T, kubeProxy, mode string) {
	// Stock configuration but for conntrack.maxPerCore: 0 (as kind sets
	// it): nf_conntrack_max is read-only outside the initial network
	// namespace, and kube-proxy exits when it cannot raise it.
	proxyInLab(t, "kp"+mode[:3], "upstream kube-proxy ("+mode+")", func(dir, proxyKubeconfig string) []string {
		config := filepath.Join(dir, "kube-proxy.yaml")
		noErr(t, os.WriteFile(config, []byte(`apiVersion: kubeproxy.config.k8s.io/v1alpha1
kind: KubeProxyConfiguration
mode: `+mode+`
clientConnection: {kubeconfig: `+proxyKubeconfig+`}
hostnameOverride: e2e-node
clusterCIDR: 10.244.0.0/16
conntrack: {maxPerCore: 0}
`), 0o600))
		return []string{kubeProxy, "--config", config, "--v=2"}
	})
}

// TestSvcplaneProxyKubeadmCommandLine: svcplane proxy started as a
// kubeadm cluster's kube-proxy DaemonSet starts kube-proxy — its command
// line (--config=<config.conf> --hostname-override=<node>) and kubeadm's
// config.conf unchanged but for the kubeconfig path (mode "", so
// iptables; conntrack as kubeadm leaves it) — routes a ClusterIP and a
// NodePort and follows an endpoint change.
func TestSvcplaneProxyKubeadmCommandLine(t *testing.T) {
	requireRoot(t)
	conf, err := os.ReadFile("../../cmd/svcplane/testdata/kubeadm-kube-proxy-config.conf")
	noErr(t, err)
	proxyInLab(t, "kpadm", "svcplane proxy (kubeadm's command line)", func(dir, proxyKubeconfig string) []string {
		config := filepath.Join(dir, "config.conf")
		noErr(t, os.WriteFile(config, []byte(strings.Replace(string(conf),
			"kubeconfig: /var/lib/kube-proxy/kubeconfig.conf", "kubeconfig: "+proxyKubeconfig, 1)), 0o600))
		return []string{bin, "proxy", "--config=" + config, "--hostname-override=e2e-node"}
	})
}

// proxyInLab runs `svcplane server` in a lab's node namespace with the web
// Service and its EndpointSlice, then the proxy command returns (given
// the data dir and a kubeconfig for kube-proxy's identity) in the same
// namespace, and sends TCP from the client namespace through the
// ClusterIP and the NodePort to the two backends.
func proxyInLab(t *testing.T, tag, who string, command func(dir, proxyKubeconfig string) []string) {
	l := netlab.New(t, netlab.Options{Tag: tag})
	node := &netns{name: l.NS("node")}
	dir := t.TempDir()
	// The lab's node address 10.100.0.1 lies inside the default Service
	// range 10.96.0.0/12, and kube-proxy's nftables mode drops what goes
	// to an unallocated address of the range ("Drop traffic to
	// unallocated ClusterIPs"), the API server's own address included: the
	// Service range is the /16 the lab routes.
	server := node.start(t, bin, "server", "--data-dir", dir, "--service-cluster-ip-range", "10.96.0.0/16",
		"--bind-address", "10.100.0.1", "--advertise-address", "10.100.0.1")
	kubectl := func(stdin string, args ...string) (string, error) {
		return node.kubectl(filepath.Join(dir, "kubeconfig"), stdin, args...)
	}
	node.waitReady(t, server, filepath.Join(dir, "kubeconfig"))
	if out, err := kubectl(kubeProxyNode+"---"+proxyManifest, "apply", "-f", "-"); err != nil {
		t.Fatalf("kubectl apply: %v\n%s", err, out)
	}
	// kube-proxy's standard certificate identity: user system:kube-proxy,
	// no group (upstream binds the user to system:node-proxier).
	proxyKubeconfig := filepath.Join(dir, "kube-proxy.kubeconfig")
	if out, err := node.exec(context.Background(), bin, "kubeconfig", "--data-dir", dir,
		"--user", "system:kube-proxy", "-o", proxyKubeconfig); err != nil {
		t.Fatalf("svcplane kubeconfig: %v\n%s", err, out)
	}
	cmd := command(dir, proxyKubeconfig)
	proxy := node.start(t, cmd[0], cmd[1:]...)
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
		return func() bool {
			select {
			case <-proxy.done:
				t.Fatalf("%s exited:\n%s", who, tail(proxy.log.String()))
			default:
			}
			got := answers(addr)
			return got["b1"] > 0 && got["b2"] > 0 && got["b1"]+got["b2"] == 24
		}
	}
	took := waitFor(t, "ClusterIP traffic to both backends", 60*time.Second, both("10.96.0.20:80"))
	t.Logf("%s routed the ClusterIP %v after it started", who, took.Round(10*time.Millisecond))
	waitFor(t, "NodePort traffic to both backends", 20*time.Second, both("10.100.0.1:30080"))

	// One endpoint leaves: the proxy follows the EndpointSlice.
	if out, err := kubectl("", "patch", "endpointslice", "web-1", "--type=json",
		"-p", `[{"op":"remove","path":"/endpoints/0"}]`); err != nil {
		t.Fatalf("kubectl patch: %v\n%s", err, out)
	}
	waitFor(t, "traffic to b2 only", 30*time.Second, func() bool { return answers("10.96.0.20:80")["b2"] == 24 })
	// Reflector errors (a refused list or watch) would show here.
	for _, bad := range []string{"field label not supported", "is forbidden", "failed to list *v1", "Failed to watch"} {
		if log := proxy.log.String(); strings.Contains(log, bad) {
			t.Errorf("%s log has %q:\n%s", who, bad, tail(log))
		}
	}
}
