package defaultservicecidr

import (
	"context"
	"testing"
	"time"

	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
	testingclock "k8s.io/utils/clock/testing"
)

func TestSyncCreatesReadyAndRunRecreates(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	client := fake.NewClientset()
	clk := testingclock.NewFakeClock(time.Now())
	c := New(client, []string{"10.96.0.0/12", "fd00::/108"}, clk)
	if err := c.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	check := func() bool {
		sc, err := client.NetworkingV1().ServiceCIDRs().Get(ctx, Name, metav1.GetOptions{})
		return err == nil && len(sc.Spec.CIDRs) == 2 && sc.Spec.CIDRs[1] == "fd00::/108" &&
			meta.IsStatusConditionTrue(sc.Status.Conditions, networkingv1.ServiceCIDRConditionReady)
	}
	if !check() {
		t.Fatal("default ServiceCIDR missing or not Ready after Sync")
	}
	go c.Run(ctx)
	if err := client.NetworkingV1().ServiceCIDRs().Delete(ctx, Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	for !clk.HasWaiters() {
		time.Sleep(time.Millisecond)
	}
	clk.Step(Interval)
	deadline := time.Now().Add(5 * time.Second)
	for !check() {
		if time.Now().After(deadline) {
			t.Fatal("default ServiceCIDR not re-created after one interval")
		}
		time.Sleep(5 * time.Millisecond)
	}
}
