package plane

import (
	"context"
	"encoding/pem"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/svcplane/svcplane/internal/pki"
)

func TestNodeNames(t *testing.T) {
	o := NewNodeOptions()
	if got := o.Names("host"); !slices.Equal(got, []string{"host"}) {
		t.Errorf("one node: %v", got)
	}
	o.NodeName = "mine"
	if got := o.Names("host"); !slices.Equal(got, []string{"mine"}) {
		t.Errorf("--node-name: %v", got)
	}
	o.Nodes, o.NamePrefix = 3, "sim-"
	if got := o.Names("host"); !slices.Equal(got, []string{"sim-0", "sim-1", "sim-2"}) {
		t.Errorf("--name-prefix: %v", got)
	}
	o.NamePrefix = ""
	if got := o.Names("host"); !slices.Equal(got, []string{"host-0", "host-1", "host-2"}) {
		t.Errorf("several, no prefix: %v", got)
	}
}

func TestNodeAddresses(t *testing.T) {
	got, err := nodeAddresses("10.240.0.0/16", 300)
	if err != nil || got[0] != "10.240.0.1" || got[255] != "10.240.1.0" || len(got) != 300 {
		t.Fatalf("%v %v", got[:2], err)
	}
	if _, err := nodeAddresses("10.240.0.0/30", 3); err == nil {
		t.Fatal("a /30 holds 3 nodes?")
	}
}

func TestNodeCountIsChecked(t *testing.T) {
	o := NewNodeOptions()
	o.Nodes = 0
	if err := o.Validate(); err == nil || err.Error() != "--nodes 0: want 1 or more" {
		t.Errorf("svcplane node --nodes 0: %v", err)
	}
	up := NewUpOptions()
	up.DataDir = t.TempDir()
	up.Nodes = -1
	if err := up.Validate(); err == nil {
		t.Error("svcplane up --nodes -1 must be refused")
	}
	up.Nodes = 0
	if err := up.Validate(); err != nil {
		t.Errorf("svcplane up --nodes 0 runs no node: %v", err)
	}
}

// A node's own credentials run that node only; the simulator's any.
func TestCheckNodeCredentials(t *testing.T) {
	dir := t.TempDir()
	ca, err := pki.LoadOrCreateCA(dir, "test-ca")
	if err != nil {
		t.Fatal(err)
	}
	cfgFor := func(user, group string) *rest.Config {
		cert, _, err := ca.EnsureClient(dir, "c-"+safeName(user), user, []string{group})
		if err != nil {
			t.Fatal(err)
		}
		return &rest.Config{TLSClientConfig: rest.TLSClientConfig{CertFile: cert}}
	}
	n1 := cfgFor("system:node:n1", "system:nodes")
	sim := cfgFor("svcplane:node-simulator", "svcplane:node-simulators")
	for _, c := range []struct {
		cfg   *rest.Config
		names []string
		ok    bool
	}{
		{n1, []string{"n1"}, true},
		{n1, []string{"n2"}, false},
		{n1, []string{"n1", "n2"}, false},
		{sim, []string{"n1", "n2"}, true},
		{&rest.Config{}, []string{"n1", "n2"}, true},
	} {
		if err := checkNodeCredentials(c.cfg, c.names); (err == nil) != c.ok {
			t.Errorf("%v: %v, want ok=%v", c.names, err, c.ok)
		}
	}
}

// TestHeartbeatWorkersScaleWithNodes: enough concurrent renewals that
// 5,000 nodes' Leases stay within the grace period at 2.5 s a request,
// and no more than half the server's mutating in-flight limit.
func TestHeartbeatWorkersScaleWithNodes(t *testing.T) {
	for n, want := range map[int]int{1: 4, 40: 4, 1000: 20, 5000: 100, 50000: 100} {
		if got := heartbeatWorkers(n); got != want {
			t.Errorf("heartbeatWorkers(%d) = %d, want %d", n, got, want)
		}
	}
}

// TestNodeClientsConnections: the pod and heartbeat clients share one
// connection, the watch client has one of its own.
func TestNodeClientsConnections(t *testing.T) {
	var mu sync.Mutex
	conns := 0
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"kind":"PodList","apiVersion":"v1","metadata":{},"items":[]}`))
	}))
	srv.EnableHTTP2 = true
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			mu.Lock()
			conns++
			mu.Unlock()
		}
	}
	srv.StartTLS()
	defer srv.Close()
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	cfg := &rest.Config{Host: srv.URL, TLSClientConfig: rest.TLSClientConfig{CAData: ca}}
	o := &NodeOptions{QPS: 100, Burst: 100}
	pods, heartbeats, watches, err := o.clients(cfg, 1)
	if err != nil {
		t.Fatal(err)
	}
	count := func() int {
		mu.Lock()
		defer mu.Unlock()
		return conns
	}
	for i, c := range []kubernetes.Interface{pods, heartbeats, watches} {
		if _, err := c.CoreV1().Pods("").List(context.Background(), metav1.ListOptions{}); err != nil {
			t.Fatalf("client %d: %v", i, err)
		}
	}
	if got := count(); got != 2 {
		t.Errorf("connections: %d, want 2 (pods and heartbeats on one, watches on its own)", got)
	}
}
