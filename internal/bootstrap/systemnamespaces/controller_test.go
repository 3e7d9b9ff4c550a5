package systemnamespaces

import (
	"context"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/svcplane/svcplane/internal/testutil"
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
	testutil.Eventually(t, 5*time.Second, "the loop to wait on its interval", clk.HasWaiters)
	clk.Step(Interval)
	testutil.Eventually(t, 5*time.Second, "kube-public re-created after one interval", func() bool {
		_, err := client.CoreV1().Namespaces().Get(ctx, "kube-public", metav1.GetOptions{})
		return err == nil
	})
}
