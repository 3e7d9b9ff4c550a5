package servicecidr

import (
	"context"
	"slices"
	"testing"
	"time"

	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	clocktesting "k8s.io/utils/clock/testing"
)

// deleted is when cidr's deleting ServiceCIDRs were deleted; the clock of
// newTest's controllers reads it plus the grace period (past it), unless a
// test sets the clock back.
var deleted = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// newTest returns a controller whose informers hold objs (no goroutines:
// the test drives sync directly) and its clock, DeletionGracePeriod after
// deleted.
func newTest(t *testing.T, objs ...runtime.Object) (*Controller, *fake.Clientset, *clocktesting.FakePassiveClock) {
	client := fake.NewClientset(objs...)
	f := informers.NewSharedInformerFactory(client, 0)
	clk := clocktesting.NewFakePassiveClock(deleted.Add(DeletionGracePeriod))
	c := New(client, f.Networking().V1().ServiceCIDRs(), f.Networking().V1().IPAddresses(), clk)
	for _, o := range objs {
		switch o := o.(type) {
		case *networkingv1.ServiceCIDR:
			_ = f.Networking().V1().ServiceCIDRs().Informer().GetStore().Add(o)
		case *networkingv1.IPAddress:
			_ = f.Networking().V1().IPAddresses().Informer().GetStore().Add(o)
		}
	}
	return c, client, clk
}

func cidr(name string, deleting bool, finalizers []string, cidrs ...string) *networkingv1.ServiceCIDR {
	sc := &networkingv1.ServiceCIDR{ObjectMeta: metav1.ObjectMeta{Name: name, Finalizers: finalizers},
		Spec: networkingv1.ServiceCIDRSpec{CIDRs: cidrs}}
	if deleting {
		sc.DeletionTimestamp = &metav1.Time{Time: deleted}
	}
	return sc
}

func ip(name string) *networkingv1.IPAddress {
	return &networkingv1.IPAddress{ObjectMeta: metav1.ObjectMeta{Name: name}}
}

func TestNewServiceCIDRGetsFinalizerAndReady(t *testing.T) {
	c, client, _ := newTest(t, cidr("a", false, nil, "10.1.0.0/24"))
	if err := c.sync(context.Background(), "a"); err != nil {
		t.Fatal(err)
	}
	sc, _ := client.NetworkingV1().ServiceCIDRs().Get(context.Background(), "a", metav1.GetOptions{})
	if !slices.Contains(sc.Finalizers, Finalizer) || !meta.IsStatusConditionTrue(sc.Status.Conditions, networkingv1.ServiceCIDRConditionReady) {
		t.Fatalf("finalizers %v conditions %v", sc.Finalizers, sc.Status.Conditions)
	}
}

func TestDeletionWaitsForUncoveredIPs(t *testing.T) {
	ctx := context.Background()
	cases := map[string]struct {
		objs []runtime.Object
		keep bool
	}{
		"an IP only it covers":               {[]runtime.Object{ip("10.1.0.5")}, true},
		"an IP another ServiceCIDR covers":   {[]runtime.Object{ip("10.1.0.5"), cidr("b", false, nil, "10.1.0.0/16")}, false},
		"an IP elsewhere":                    {[]runtime.Object{ip("10.2.0.5")}, false},
		"no IPs":                             {nil, false},
		"cover by a deleting one counts not": {[]runtime.Object{ip("10.1.0.5"), cidr("b", true, []string{Finalizer}, "10.1.0.0/16")}, true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			objs := append([]runtime.Object{cidr("a", true, []string{Finalizer}, "10.1.0.0/24")}, tc.objs...)
			c, client, _ := newTest(t, objs...)
			if err := c.sync(ctx, "a"); err != nil {
				t.Fatal(err)
			}
			sc, _ := client.NetworkingV1().ServiceCIDRs().Get(ctx, "a", metav1.GetOptions{})
			if kept := slices.Contains(sc.Finalizers, Finalizer); kept != tc.keep {
				t.Fatalf("finalizer kept=%v, want %v", kept, tc.keep)
			}
			if tc.keep {
				cond := meta.FindStatusCondition(sc.Status.Conditions, networkingv1.ServiceCIDRConditionReady)
				if cond == nil || cond.Status != metav1.ConditionFalse || cond.Reason != ReasonTerminating {
					t.Fatalf("condition %+v", cond)
				}
			}
		})
	}
}

// TestDeletionGracePeriod: a deleting ServiceCIDR that no IPAddress needs
// keeps its finalizer until DeletionGracePeriod after its deletion, as
// upstream's controller (an IPAddress just allocated from it may not be
// in the informer yet), and loses it after.
func TestDeletionGracePeriod(t *testing.T) {
	ctx := context.Background()
	c, client, clk := newTest(t, cidr("a", true, []string{Finalizer}, "10.1.0.0/24"))
	clk.SetTime(deleted.Add(DeletionGracePeriod - time.Second))
	if err := c.sync(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	if sc, _ := client.NetworkingV1().ServiceCIDRs().Get(ctx, "a", metav1.GetOptions{}); !slices.Contains(sc.Finalizers, Finalizer) {
		t.Fatalf("finalizer removed 9 s after the deletion: %v", sc.Finalizers)
	}
	clk.SetTime(deleted.Add(DeletionGracePeriod))
	if err := c.sync(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	if sc, _ := client.NetworkingV1().ServiceCIDRs().Get(ctx, "a", metav1.GetOptions{}); slices.Contains(sc.Finalizers, Finalizer) {
		t.Fatalf("finalizer kept after the grace period: %v", sc.Finalizers)
	}
}
