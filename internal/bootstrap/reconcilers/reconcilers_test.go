package reconcilers

import (
	"context"
	"errors"
	"net"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	testingclock "k8s.io/utils/clock/testing"
)

var (
	ctx   = context.Background()
	ports = []corev1.EndpointPort{{Name: "https", Port: 6443, Protocol: corev1.ProtocolTCP}}
)

// listed returns the addresses of the Endpoints and of the EndpointSlice,
// failing if they disagree.
func listed(t *testing.T, c kubernetes.Interface) []string {
	t.Helper()
	e, err := c.CoreV1().Endpoints(Namespace).Get(ctx, Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := c.DiscoveryV1().EndpointSlices(Namespace).Get(ctx, Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var fromSlice []string
	for _, ep := range s.Endpoints {
		fromSlice = append(fromSlice, ep.Addresses...)
	}
	got := AddressesOf(e)
	if !slices.Equal(got, fromSlice) {
		t.Fatalf("Endpoints %v and EndpointSlice %v disagree", got, fromSlice)
	}
	if e.Labels["endpointslice.kubernetes.io/skip-mirror"] != "true" || s.Labels["kubernetes.io/service-name"] != Name {
		t.Fatalf("labels: %v / %v", e.Labels, s.Labels)
	}
	return got
}

func TestLeaseReconciler(t *testing.T) {
	client := fake.NewClientset()
	clk := testingclock.NewFakeClock(time.Now())
	leases := NewFakeLeases(clk)
	a, b := NewLease(client, leases), NewLease(client, leases)
	ipA, ipB := net.ParseIP("10.0.0.1"), net.ParseIP("10.0.0.2")
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(a.ReconcileEndpoints(ctx, ipA, ports, true))
	must(b.ReconcileEndpoints(ctx, ipB, ports, true))
	if got := listed(t, client); !slices.Equal(got, []string{"10.0.0.1", "10.0.0.2"}) {
		t.Fatalf("both servers: %v", got)
	}
	// B dies: after the TTL its lease is gone and A's next pass drops it.
	clk.Step(10 * time.Second)
	must(a.ReconcileEndpoints(ctx, ipA, ports, true))
	clk.Step(6 * time.Second)
	must(a.Resync(ctx, ports))
	if got := listed(t, client); !slices.Equal(got, []string{"10.0.0.1"}) {
		t.Fatalf("after B's lease expired: %v", got)
	}
	// Every lease gone (clock jumped): refuse to erase the endpoints.
	clk.Step(time.Minute)
	if err := a.Resync(ctx, ports); !errors.Is(err, ErrNoLeases) {
		t.Fatalf("want refusal, got %v", err)
	}
	if got := listed(t, client); len(got) != 1 {
		t.Fatalf("endpoints erased: %v", got)
	}
	// The last server stopping removes itself.
	a.StopReconciling()
	must(a.ReconcileEndpoints(ctx, ipA, ports, true)) // no-op once stopped
	must(a.RemoveEndpoints(ctx, ipA, ports))
	if got := listed(t, client); len(got) != 0 {
		t.Fatalf("after the last server stopped: %v", got)
	}
}

func TestMasterCountReconciler(t *testing.T) {
	client := fake.NewClientset()
	ips := []string{"10.0.0.3", "10.0.0.1", "10.0.0.2"}
	var rs []*MasterCountReconciler
	for range ips {
		rs = append(rs, NewMasterCount(client, 2))
	}
	for i, ip := range ips {
		if err := rs[i].ReconcileEndpoints(ctx, net.ParseIP(ip), ports, true); err != nil {
			t.Fatal(err)
		}
		got := listed(t, client)
		if len(got) > 2 || !slices.Contains(got, ip) {
			t.Fatalf("after %s: %v (count 2, must hold itself)", ip, got)
		}
	}
	if err := rs[2].RemoveEndpoints(ctx, net.ParseIP("10.0.0.2"), ports); err != nil {
		t.Fatal(err)
	}
	if got := listed(t, client); slices.Contains(got, "10.0.0.2") {
		t.Fatalf("removed server still listed: %v", got)
	}
}
