package e2e

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/svcplane/svcplane/internal/proxy/proxytest/netlab"
)

// keepManifest adds a Deployment whose simulated pods get IPs from the
// node's pod CIDR.
const keepManifest = `
apiVersion: apps/v1
kind: Deployment
metadata: {name: keep, namespace: default}
spec:
  replicas: 2
  selector: {matchLabels: {app: keep}}
  template:
    metadata: {labels: {app: keep}}
    spec: {containers: [{name: c, image: registry.k8s.io/pause}]}
`

// TestUpRestartKeepsEverything stops `svcplane up` (nftables proxy, one
// simulated node) with SIGTERM and starts it again on its data dir while a
// client keeps dialling the Service: no request fails (the rules are never
// flushed, not while down, not before the restarted proxy's first sync),
// and the objects keep their resourceVersions, the Service its ClusterIP
// and NodePort, the pods their UIDs and IPs.
func TestUpRestartKeepsEverything(t *testing.T) {
	requireRoot(t)
	l := netlab.New(t, netlab.Options{Tag: "uprst", RouteServicesVia: "vb2"})
	node := &netns{name: l.NS("node")}
	dir := t.TempDir()
	args := []string{"up", "--data-dir", dir, "--proxy-mode", "nftables", "--node-name", "e2e-node",
		"--bind-address", "10.100.0.1", "--advertise-address", "10.100.0.1"}
	kubectl := func(stdin string, args ...string) string {
		t.Helper()
		out, err := node.kubectl(filepath.Join(dir, "kubeconfig"), stdin, args...)
		if err != nil {
			t.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return out
	}
	start := func() *proc {
		p := node.start(t, bin, args...)
		node.waitReady(t, p, filepath.Join(dir, "kubeconfig"))
		return p
	}
	up := start()
	kubectl(proxyManifest+"---"+keepManifest, "apply", "-f", "-")
	// answered dials the Service 24 times and returns how many answered,
	// with the dialer's whole output.
	answered := func() (int, string) {
		out, _ := l.Helper("client", "dial", "PROTO=tcp", "ADDR=10.96.0.20:80").CombinedOutput()
		n := 0
		for _, line := range strings.Split(string(out), "\n") {
			if f := strings.Fields(line); len(f) > 0 && (f[0] == "b1" || f[0] == "b2") {
				n++
			}
		}
		return n, string(out)
	}
	waitFor(t, "ClusterIP traffic", 30*time.Second, func() bool { n, _ := answered(); return n == 24 })
	// The dials before the proxy's first sync went out un-NATed (the node
	// routes the Service range away) and left UNREPLIED SYN_SENT conntrack
	// entries, which live 120 s: a later connection that happens to reuse
	// one's source port matches it and skips DNAT. No real client dials a
	// ClusterIP before its Service exists; forget those flows.
	if out, err := node.exec(context.Background(), "conntrack", "-D", "-p", "tcp", "--orig-dst", "10.96.0.20", "--status", "UNREPLIED"); err != nil && !strings.Contains(err.Error(), "0 flow entries") {
		t.Fatalf("conntrack -D: %v %s", err, out)
	}
	state := func() string {
		return kubectl("", "get", "svc/web", "endpointslice/web-1", "-o",
			`jsonpath={range .items[*]}{.kind}/{.metadata.name} rv={.metadata.resourceVersion} {.spec.clusterIP} {.spec.ports[*].nodePort}{"\n"}{end}`) +
			pods(kubectl)
	}
	waitFor(t, "two pods Running with IPs", 60*time.Second, func() bool { return strings.Count(pods(kubectl), "Running") == 2 })
	before := state()

	var mu sync.Mutex
	probes, failed := 0, 0
	var failures []string
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-stop:
				return
			default:
			}
			n, out := answered()
			mu.Lock()
			probes++
			if n != 24 {
				failed++
				failures = append(failures, fmt.Sprintf("probe %d at %s:\n%s", probes, time.Now().Format("15:04:05.000"), out))
			}
			mu.Unlock()
		}
	}()
	up.signal(t, syscall.SIGTERM)
	up = start()
	time.Sleep(5 * time.Second) // the restarted proxy's first syncs
	close(stop)
	<-done
	t.Logf("%d probes of 24 connections each across the restart, %d with a failure", probes, failed)
	if failed > 0 || probes < 3 {
		t.Fatalf("%d of %d probes through the ClusterIP failed across the restart:\n%s", failed, probes, strings.Join(failures, "\n"))
	}
	if after := state(); after != before {
		t.Fatalf("state changed across the restart:\nbefore:\n%s\nafter:\n%s", before, after)
	}
	up.signal(t, syscall.SIGTERM)
	_, _ = node.exec(context.Background(), bin, "proxy", "--cleanup")
}

// pods lists the keep pods as sorted "name uid ip phase" lines.
func pods(kubectl func(string, ...string) string) string {
	out := kubectl("", "get", "pods", "-l", "app=keep", "-o",
		`jsonpath={range .items[*]}{.metadata.name} {.metadata.uid} {.status.podIP} {.status.phase}{"\n"}{end}`)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}
