package systemnamespaces

import (
	"context"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
	testingclock "k8s.io/utils/clock/testing"
)

func TestSyncCreatesMissingAndRunRecreates(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	client := fake.NewClientset()
	clk := testingclock.NewFakeClock(time.Now())
	c := New(client, clk)
	if err := c.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	for _, n := range Names {
		if _, err := client.CoreV1().Namespaces().Get(ctx, n, metav1.GetOptions{}); err != nil {
			t.Fatalf("namespace %s: %v", n, err)
		}
	}
	if err := client.CoreV1().Namespaces().Delete(ctx, "kube-public", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	go c.Run(ctx)
	for !clk.HasWaiters() {
		time.Sleep(time.Millisecond)
	}
	clk.Step(Interval)
	deadline := time.Now().Add(5 * time.Second)
	for {
		if _, err := client.CoreV1().Namespaces().Get(ctx, "kube-public", metav1.GetOptions{}); err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("kube-public was not re-created after one interval")
		}
		time.Sleep(time.Millisecond)
	}
}
