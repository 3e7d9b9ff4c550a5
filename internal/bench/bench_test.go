package bench

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/utils/clock"

	"github.com/svcplane/svcplane/internal/proxy"
	"github.com/svcplane/svcplane/internal/proxy/proxytest/synthetic"
)

func quietProgress() *progress { return newProgress(io.Discard, clock.RealClock{}, time.Hour) }

func TestCreateHeadlessServices(t *testing.T) {
	var out bytes.Buffer
	p := quietProgress()
	defer p.stop()
	if err := createServices(&out, p, []kubernetes.Interface{fake.NewClientset()}, 20, 4, true); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "20 headless Services with 4 clients over 1 connections") || !strings.Contains(out.String(), "uniqueness: 0 distinct ClusterIPs") {
		t.Errorf("output:\n%s", out.String())
	}
}

func TestCheckUniqueFindsDuplicates(t *testing.T) {
	svc := func(name, ip string) *corev1.Service {
		return &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name}, Spec: corev1.ServiceSpec{ClusterIP: ip}}
	}
	client := fake.NewClientset(svc("a", "10.96.0.10"), svc("b", "10.96.0.11"), svc("kubernetes", "10.96.0.1"))
	if err := checkUnique(io.Discard, context.Background(), client, 2, false); err != nil {
		t.Errorf("distinct IPs: %v", err)
	}
	if err := checkUnique(io.Discard, context.Background(), client, 3, false); err == nil {
		t.Error("3 wanted, 2 have a ClusterIP: no error")
	}
	_, _ = client.CoreV1().Services("default").Create(context.Background(), svc("c", "10.96.0.10"), metav1.CreateOptions{})
	if err := checkUnique(io.Discard, context.Background(), client, 3, false); err == nil || !strings.Contains(err.Error(), "DUPLICATE ClusterIP 10.96.0.10") {
		t.Errorf("duplicate: %v", err)
	}
}

// countingBackend records the syncs and the snapshots it was given.
type countingBackend struct {
	snap  **proxy.Snapshot
	last  *proxy.SyncResult
	fulls []bool
	sizes []int
}

func (b *countingBackend) SyncProxyRules(full bool) error {
	b.fulls, b.sizes = append(b.fulls, full), append(b.sizes, len((*b.snap).Services))
	*b.last = proxy.SyncResult{Full: full, Changes: len(b.fulls)}
	return nil
}

func (b *countingBackend) Run(context.Context, func()) {}

func TestTimeSyncs(t *testing.T) {
	snap := synthetic.Snapshot(10, 2, 0)
	var last proxy.SyncResult
	b := &countingBackend{snap: &snap, last: &last}
	var steps []int
	prog := quietProgress()
	defer prog.stop()
	got, err := timeSyncs(prog, b, &snap, &last, func(i int) { steps = append(steps, i) })
	if err != nil {
		t.Fatal(err)
	}
	if want := []bool{true, false, false, true}; len(b.fulls) != 4 || b.fulls[0] != want[0] || b.fulls[1] || b.fulls[2] || !b.fulls[3] {
		t.Errorf("syncs full=%v, want %v", b.fulls, want)
	}
	if b.sizes[1] != 10 || b.sizes[2] != 11 || snap.Endpoints[synthetic.Name("svc-0")][0].IP.String() != "10.127.0.1" {
		t.Errorf("snapshots: services %v; svc-0 endpoint %v", b.sizes, snap.Endpoints[synthetic.Name("svc-0")][0].IP)
	}
	if got.results[2].Changes != 3 || len(steps) != 4 {
		t.Errorf("results %+v, after-steps %v", got.results, steps)
	}
}

func TestAddedP99(t *testing.T) {
	direct := "127.0.0.1:8081: 20000 requests at 10000/s in alternating 50ms slices, p50 40µs p99 90µs"
	via := "10.96.0.11:80: 20000 requests at 10000/s in alternating 50ms slices, p50 70µs p99 150µs"
	if got := addedP99(direct, via); got != "60µs (150µs through the proxy − 90µs direct)" {
		t.Errorf("got %q", got)
	}
	if got := addedP99("garbage", via); got != "unknown" {
		t.Errorf("got %q", got)
	}
}

func TestWithClusterCIDRHoldsTheNodes(t *testing.T) {
	for _, tc := range []struct {
		nodes int
		args  []string
		want  string
	}{
		{100, nil, ""}, // the default /16 holds 256
		{256, nil, ""},
		{257, nil, "--cluster-cidr=10.128.0.0/15"},
		{1000, nil, "--cluster-cidr=10.128.0.0/14"},
		{5000, nil, "--cluster-cidr=10.128.0.0/11"},
		{5000, []string{"--cluster-cidr=10.0.0.0/8"}, ""},
	} {
		got := withClusterCIDR(tc.args, tc.nodes)
		added := ""
		if len(got) > len(tc.args) {
			added = got[len(got)-1]
		}
		if added != tc.want {
			t.Errorf("%d nodes, args %v: added %q, want %q", tc.nodes, tc.args, added, tc.want)
		}
	}
}
