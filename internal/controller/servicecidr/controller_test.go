package servicecidr

import (
	"context"
	"slices"
	"testing"

	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
)

// newTest returns a controller whose informers hold objs (no goroutines:
// the test drives sync directly).
func newTest(t *testing.T, objs ...runtime.Object) (*Controller, *fake.Clientset) {
	client := fake.NewClientset(objs...)
	f := informers.NewSharedInformerFactory(client, 0)
	c := New(client, f.Networking().V1().ServiceCIDRs(), f.Networking().V1().IPAddresses())
	for _, o := range objs {
		switch o := o.(type) {
		case *networkingv1.ServiceCIDR:
			_ = f.Networking().V1().ServiceCIDRs().Informer().GetStore().Add(o)
		case *networkingv1.IPAddress:
			_ = f.Networking().V1().IPAddresses().Informer().GetStore().Add(o)
		}
	}
	return c, client
}

func cidr(name string, deleting bool, finalizers []string, cidrs ...string) *networkingv1.ServiceCIDR {
	sc := &networkingv1.ServiceCIDR{ObjectMeta: metav1.ObjectMeta{Name: name, Finalizers: finalizers},
		Spec: networkingv1.ServiceCIDRSpec{CIDRs: cidrs}}
	if deleting {
		now := metav1.Now()
		sc.DeletionTimestamp = &now
	}
	return sc
}

func ip(name string) *networkingv1.IPAddress {
	return &networkingv1.IPAddress{ObjectMeta: metav1.ObjectMeta{Name: name}}
}

func TestNewServiceCIDRGetsFinalizerAndReady(t *testing.T) {
	c, client := newTest(t, cidr("a", false, nil, "10.1.0.0/24"))
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
			c, client := newTest(t, objs...)
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
