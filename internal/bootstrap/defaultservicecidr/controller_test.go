package defaultservicecidr

import (
	"context"
	"testing"
	"time"

	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/svcplane/svcplane/internal/testutil"
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
	testutil.Eventually(t, 5*time.Second, "the loop to wait on its interval", clk.HasWaiters)
	clk.Step(Interval)
	testutil.Eventually(t, 5*time.Second, "the default ServiceCIDR re-created after one interval", check)
}

// TestSyncToleratesAnotherServerCreatingFirst: between this server's Get
// (NotFound) and Create, another server creates the ServiceCIDR and marks
// it Ready; Sync must re-read and succeed, not fail with AlreadyExists.
func TestSyncToleratesAnotherServerCreatingFirst(t *testing.T) {
	ctx := context.Background()
	client := fake.NewClientset()
	raced := false
	client.PrependReactor("create", "servicecidrs", func(action k8stesting.Action) (bool, runtime.Object, error) {
		if !raced { // the other server's create lands first (reactors may not call the client)
			raced = true
			obj := action.(k8stesting.CreateAction).GetObject().DeepCopyObject().(*networkingv1.ServiceCIDR)
			meta.SetStatusCondition(&obj.Status.Conditions, metav1.Condition{Type: networkingv1.ServiceCIDRConditionReady,
				Status: metav1.ConditionTrue, Reason: "DefaultServiceCIDR"})
			if err := client.Tracker().Add(obj); err != nil {
				t.Errorf("other server's create: %v", err)
			}
		}
		return false, nil, nil
	})
	c := New(client, []string{"10.96.0.0/12"}, testingclock.NewFakeClock(time.Now()))
	if err := c.Sync(ctx); err != nil {
		t.Fatalf("Sync after another server created the ServiceCIDR: %v", err)
	}
	if !raced {
		t.Fatal("the race was not exercised")
	}
}
