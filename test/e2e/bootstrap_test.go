package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// cluster is etcd plus API servers in one namespace, sharing one CA so that
// one admin kubeconfig works against every server.
type cluster struct {
	t       *testing.T
	ns      *netns
	etcd    []string // client URLs
	dir     string
	servers map[string]*proc // by address
}

func newCluster(t *testing.T, ns *netns, etcdURLs []string) *cluster {
	return &cluster{t: t, ns: ns, etcd: etcdURLs, dir: t.TempDir(), servers: map[string]*proc{}}
}

// startServer runs `svcplane server` bound to and advertising addr.
func (c *cluster) startServer(addr string, extra ...string) {
	c.t.Helper()
	data := filepath.Join(c.dir, addr)
	if len(c.servers) > 0 { // share the first server's CA
		first := filepath.Join(c.dir, c.firstAddr(), "pki")
		noErr(c.t, os.MkdirAll(filepath.Join(data, "pki"), 0o700))
		for _, f := range []string{"ca.crt", "ca.key"} {
			b, err := os.ReadFile(filepath.Join(first, f))
			noErr(c.t, err)
			noErr(c.t, os.WriteFile(filepath.Join(data, "pki", f), b, 0o600))
		}
	}
	args := append([]string{"server", "--data-dir", data, "--etcd-servers", strings.Join(c.etcd, ","),
		"--bind-address", addr, "--advertise-address", addr, "--secure-port", "6443"}, extra...)
	c.servers[addr] = c.ns.start(c.t, bin, args...)
	waitFor(c.t, "server "+addr+" ready", 60*time.Second, func() bool {
		_, err := c.kubectl(addr, "get", "--raw", "/readyz")
		return err == nil
	})
}

func (c *cluster) firstAddr() string {
	for _, a := range []string{"10.203.0.11", "10.203.0.12", "10.203.0.13"} {
		if _, ok := c.servers[a]; ok {
			return a
		}
	}
	c.t.Fatal("no server started")
	return ""
}

// kubectl runs kubectl inside the namespace against the server at addr.
func (c *cluster) kubectl(addr string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	kc := filepath.Join(c.dir, "10.203.0.11", "kubeconfig")
	return c.ns.exec(ctx, "kubectl", append([]string{"--kubeconfig", kc, "--server", "https://" + addr + ":6443"}, args...)...)
}

// endpoints returns the addresses of the kubernetes Endpoints and
// EndpointSlice as seen through the server at addr; they must agree.
func (c *cluster) endpoints(addr string) ([]string, bool) {
	ep, err1 := c.kubectl(addr, "get", "endpoints", "kubernetes", "-n", "default", "-o", "jsonpath={.subsets[*].addresses[*].ip}")
	sl, err2 := c.kubectl(addr, "get", "endpointslice", "kubernetes", "-n", "default", "-o", "jsonpath={.endpoints[*].addresses[*]}")
	if err1 != nil || err2 != nil {
		return nil, false
	}
	a, b := strings.Fields(ep), strings.Fields(sl)
	slices.Sort(a)
	slices.Sort(b)
	return a, slices.Equal(a, b)
}

// endpointVersions returns the resourceVersions of the kubernetes
// Endpoints and EndpointSlice as seen through the server at addr.
func (c *cluster) endpointVersions(addr string) string {
	c.t.Helper()
	ep, err := c.kubectl(addr, "get", "endpoints", "kubernetes", "-n", "default", "-o", "jsonpath={.metadata.resourceVersion}")
	noErr(c.t, err)
	sl, err := c.kubectl(addr, "get", "endpointslice", "kubernetes", "-n", "default", "-o", "jsonpath={.metadata.resourceVersion}")
	noErr(c.t, err)
	return ep + "/" + sl
}

func noErr(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestThreeServersOneEtcd: the kubernetes endpoints list every live server;
// a killed server drops out when its lease expires, a stopped one at once,
// and when all are stopped none is left.
func TestThreeServersOneEtcd(t *testing.T) {
	requireRoot(t)
	ns := newNetns(t, "10.203.0.11", "10.203.0.12", "10.203.0.13")
	ns.start(t, "etcd", "--name", "e0", "--data-dir", t.TempDir(),
		"--listen-client-urls", "http://127.0.0.1:2379", "--advertise-client-urls", "http://127.0.0.1:2379",
		"--listen-peer-urls", "http://127.0.0.1:2380", "--initial-advertise-peer-urls", "http://127.0.0.1:2380",
		"--initial-cluster", "e0=http://127.0.0.1:2380")
	c := newCluster(t, ns, []string{"http://127.0.0.1:2379"})
	all := []string{"10.203.0.11", "10.203.0.12", "10.203.0.13"}
	for _, a := range all {
		c.startServer(a)
	}
	waitFor(t, "all three servers in the endpoints", 30*time.Second, func() bool {
		got, ok := c.endpoints(all[2])
		return ok && slices.Equal(got, all)
	})
	out, err := c.kubectl(all[2], "get", "svc", "kubernetes", "-n", "default")
	noErr(t, err)
	if !strings.Contains(out, "10.96.0.1") || !strings.Contains(out, "443/TCP") {
		t.Fatalf("get svc kubernetes:\n%s", out)
	}
	// While the set of live servers stays, nothing writes the endpoints:
	// every lease refresh renews its key, none expires in between.
	before := c.endpointVersions(all[1])
	time.Sleep(60 * time.Second)
	if after := c.endpointVersions(all[0]); after != before {
		t.Fatalf("the kubernetes Endpoints/EndpointSlice were written in 60 s with the same three servers live: resourceVersions %s then %s", before, after)
	}

	c.servers[all[0]].signal(t, syscall.SIGKILL)
	took := waitFor(t, "the killed server to drop out", 40*time.Second, func() bool {
		got, ok := c.endpoints(all[1])
		return ok && slices.Equal(got, all[1:])
	})
	t.Logf("killed server gone from the endpoints after %v (lease TTL 15 s)", took.Round(100*time.Millisecond))

	noErr(t, c.servers[all[1]].cmd.Process.Signal(syscall.SIGTERM))
	took = waitFor(t, "the stopped server to drop out", 10*time.Second, func() bool {
		got, ok := c.endpoints(all[2])
		return ok && slices.Equal(got, all[2:])
	})
	t.Logf("stopped server gone from the endpoints %v after SIGTERM (each check is two kubectl runs)", took.Round(10*time.Millisecond))
	c.servers[all[1]].wait(t, syscall.SIGTERM)

	c.servers[all[2]].signal(t, syscall.SIGTERM)
	// A server that publishes nothing itself shows what was left.
	c.startServer(all[0], "--endpoint-reconciler-type", "none")
	if got, _ := c.endpoints(all[0]); len(got) != 0 {
		t.Fatalf("after every server stopped, the endpoints still list %v", got)
	}
}

// TestServersSurviveAnEtcdMemberLoss runs three servers on a three-member
// etcd cluster, kills one member and checks every server still takes
// writes and still lists all three servers.
func TestServersSurviveAnEtcdMemberLoss(t *testing.T) {
	requireRoot(t)
	ns := newNetns(t, "10.203.0.11", "10.203.0.12", "10.203.0.13")
	var initial, clients []string
	for i := 0; i < 3; i++ {
		initial = append(initial, fmt.Sprintf("e%d=http://127.0.0.1:%d", i, 2380+10*i))
		clients = append(clients, fmt.Sprintf("http://127.0.0.1:%d", 2379+10*i))
	}
	var members []*proc
	for i := 0; i < 3; i++ {
		peer := fmt.Sprintf("http://127.0.0.1:%d", 2380+10*i)
		members = append(members, ns.start(t, "etcd", "--name", fmt.Sprintf("e%d", i), "--data-dir", t.TempDir(),
			"--listen-client-urls", clients[i], "--advertise-client-urls", clients[i],
			"--listen-peer-urls", peer, "--initial-advertise-peer-urls", peer,
			"--initial-cluster", strings.Join(initial, ","), "--initial-cluster-state", "new"))
	}
	c := newCluster(t, ns, clients)
	all := []string{"10.203.0.11", "10.203.0.12", "10.203.0.13"}
	for _, a := range all {
		c.startServer(a)
	}
	members[0].signal(t, syscall.SIGKILL)
	for i, a := range all {
		waitFor(t, "a write through "+a+" with one etcd member down", 30*time.Second, func() bool {
			_, err := c.kubectl(a, "create", "configmap", fmt.Sprintf("after-loss-%d", i), "-n", "default")
			return err == nil
		})
	}
	waitFor(t, "all three servers still in the endpoints", 30*time.Second, func() bool {
		got, ok := c.endpoints(all[1])
		return ok && slices.Equal(got, all)
	})
}
