package bench

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes/fake"
)

// TestCIDRPool: subnets in order, taken ones skipped, a clear error once
// all are gone; a cluster CIDR that cannot hold the mask is refused.
func TestCIDRPool(t *testing.T) {
	p, err := newCIDRPool("10.128.0.0/22", 24)
	if err != nil {
		t.Fatal(err)
	}
	p.take("10.128.1.0/24")
	var got []string
	for i := 0; i < 3; i++ {
		s, err := p.allocate()
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, s.String())
	}
	if strings.Join(got, " ") != "10.128.0.0/24 10.128.2.0/24 10.128.3.0/24" {
		t.Errorf("allocated %v", got)
	}
	if _, err := p.allocate(); err == nil || err.Error() != "cluster CIDR 10.128.0.0/22: all 4 /24 subnets are taken" {
		t.Errorf("exhausted: %v", err)
	}
	for _, bad := range []string{"10.0.0.0/25", "fd00::/48", "nonsense"} {
		if _, err := newCIDRPool(bad, 24); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
	big, _ := newCIDRPool("10.128.0.0/14", 24)
	if s := big.subnet(1000); s.String() != "10.131.232.0/24" {
		t.Errorf("subnet 1000 = %s", s)
	}
}

// TestPodCIDRAssigner: a Node without a pod CIDR gets the first subnet
// that no Node has, through the API; a Node's own CIDR stays.
func TestPodCIDRAssigner(t *testing.T) {
	client := fake.NewClientset(
		&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "a"}, Spec: corev1.NodeSpec{PodCIDR: "10.128.0.0/24", PodCIDRs: []string{"10.128.0.0/24"}}},
		&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "b"}},
	)
	pool, _ := newCIDRPool("10.128.0.0/22", 24)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go newPodCIDRAssigner(client, pool).run(ctx)
	podCIDRs := func(name string) []string {
		n, err := client.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return n.Spec.PodCIDRs
	}
	waitFor := func(name, want string) {
		t.Helper()
		err := wait.PollUntilContextTimeout(ctx, 10*time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
			return len(podCIDRs(name)) == 1, nil
		})
		n, _ := client.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
		if err != nil || n.Spec.PodCIDR != want || n.Spec.PodCIDRs[0] != want {
			t.Fatalf("node %s: podCIDR %q podCIDRs %v (%v), want %s", name, n.Spec.PodCIDR, n.Spec.PodCIDRs, err, want)
		}
	}
	waitFor("b", "10.128.1.0/24")
	// A Node registered later.
	if _, err := client.CoreV1().Nodes().Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "c"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor("c", "10.128.2.0/24")
	if got := podCIDRs("a"); len(got) != 1 || got[0] != "10.128.0.0/24" {
		t.Errorf("node a's CIDRs changed: %v", got)
	}
}
