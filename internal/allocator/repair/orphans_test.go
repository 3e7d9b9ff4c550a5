package repair

import (
	"context"
	"net/netip"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/svcplane/svcplane/internal/allocator/ipallocator"
	"github.com/svcplane/svcplane/internal/testutil"
)

func ipAddressFor(ip, ns, name string, created time.Time) *networkingv1.IPAddress {
	obj := ipallocator.NewIPAddress(netip.MustParseAddr(ip), ipallocator.Owner{Namespace: ns, Name: name})
	obj.CreationTimestamp = metav1.NewTime(created)
	obj.UID = types.UID("uid-" + ip)
	return obj
}

func clusterIPService(ns, name, ip string) *corev1.Service {
	return &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeClusterIP, ClusterIP: ip, ClusterIPs: []string{ip}}}
}

// TestOrphanControllerFreesLeaksAfterGrace: an IPAddress whose Service
// never came (a crash) is freed when it is OrphanGracePeriod old, not
// before; one whose Service holds it stays; one whose Service is deleted
// underneath (an etcd key gone) is freed at once when old enough.
func TestOrphanControllerFreesLeaksAfterGrace(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	now := time.Unix(1000, 0)
	clk := testingclock.NewFakeClock(now)
	held := clusterIPService("default", "kubernetes", "10.96.0.1")
	client := fake.NewClientset(
		held,
		ipAddressFor("10.96.0.1", "default", "kubernetes", now.Add(-time.Hour)),
		ipAddressFor("10.96.0.7", "ns", "never-written", now.Add(-10*time.Second)),
		clusterIPService("ns", "held", "10.96.0.8"),
		ipAddressFor("10.96.0.8", "ns", "held", now.Add(-time.Hour)),
	)
	f := informers.NewSharedInformerFactory(client, 0)
	c := NewOrphanController(client, f, &fakeRecorder{}, clk)
	f.Start(ctx.Done())
	go c.Run(ctx)

	exists := func(name string) bool {
		_, err := client.NetworkingV1().IPAddresses().Get(ctx, name, metav1.GetOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			t.Fatal(err)
		}
		return err == nil
	}
	eventually := func(what string, cond func() bool) {
		t.Helper()
		testutil.Eventually(t, 10*time.Second, what, cond)
	}
	// The young leak waits for its grace period (a requeue on the clock).
	eventually("the young leak scheduled", clk.HasWaiters)
	if !exists("10.96.0.7") {
		t.Fatal("a 10 s old IPAddress was freed inside its grace period")
	}
	clk.Step(OrphanGracePeriod - 10*time.Second)
	if !exists("10.96.0.7") {
		t.Fatal("freed at exactly the grace period, before it elapsed")
	}
	clk.Step(2 * time.Millisecond)
	eventually("the leak freed 60 s after it was taken", func() bool { return !exists("10.96.0.7") })

	// The kubernetes Service vanishes from storage: its IP is free at once.
	if err := client.CoreV1().Services("default").Delete(ctx, "kubernetes", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually("the vanished Service's IP freed", func() bool { return !exists("10.96.0.1") })
	if !exists("10.96.0.8") {
		t.Fatal("an IPAddress its Service holds was freed")
	}
}

// TestOrphanControllerReadsStorageOnlyToFree: an IPAddress the Service
// cache shows held, or one inside its grace period, costs no Service read
// from the API; only one about to be freed is checked against storage.
func TestOrphanControllerReadsStorageOnlyToFree(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	now := time.Unix(1000, 0)
	clk := testingclock.NewFakeClock(now)
	client := fake.NewClientset(
		clusterIPService("ns", "held", "10.96.0.8"),
		ipAddressFor("10.96.0.8", "ns", "held", now.Add(-time.Hour)),
		ipAddressFor("10.96.0.9", "ns", "in-flight", now.Add(-time.Second)),
		ipAddressFor("10.96.0.10", "ns", "gone", now.Add(-time.Hour)),
	)
	f := informers.NewSharedInformerFactory(client, 0)
	c := NewOrphanController(client, f, &fakeRecorder{}, clk)
	f.Start(ctx.Done())
	go c.Run(ctx)
	testutil.Eventually(t, 10*time.Second, "the leak freed and the in-flight one scheduled", func() bool {
		_, err := client.NetworkingV1().IPAddresses().Get(ctx, "10.96.0.10", metav1.GetOptions{})
		return apierrors.IsNotFound(err) && clk.HasWaiters()
	})
	var reads []string
	for _, a := range client.Actions() {
		if a.GetVerb() == "get" && a.GetResource().Resource == "services" {
			reads = append(reads, a.(interface{ GetName() string }).GetName())
		}
	}
	if len(reads) != 1 || reads[0] != "gone" {
		t.Fatalf("Service reads from the API: %v, want only [gone]", reads)
	}
}
