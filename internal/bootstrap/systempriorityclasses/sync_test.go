package systempriorityclasses

import (
	"context"
	"testing"

	schedulingv1 "k8s.io/api/scheduling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
)

// TestSyncCreatesMissingKeepsExisting: the missing class is created with
// upstream's value; an existing one (here with another description) is
// not overwritten.
func TestSyncCreatesMissingKeepsExisting(t *testing.T) {
	existing := &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: "system-cluster-critical"},
		Value: 2000000000, Description: "mine"}
	client := fake.NewSimpleClientset(existing)
	ctx := context.Background()
	if err := Sync(ctx, client); err != nil {
		t.Fatal(err)
	}
	got, err := client.SchedulingV1().PriorityClasses().Get(ctx, "system-node-critical", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Value != 2000001000 {
		t.Errorf("system-node-critical value %d, want 2000001000", got.Value)
	}
	kept, _ := client.SchedulingV1().PriorityClasses().Get(ctx, "system-cluster-critical", metav1.GetOptions{})
	if kept.Description != "mine" {
		t.Errorf("existing class overwritten: %q", kept.Description)
	}
	if err := Sync(ctx, client); err != nil {
		t.Errorf("second sync: %v", err)
	}
}
