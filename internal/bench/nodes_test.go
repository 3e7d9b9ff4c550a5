package bench

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/kubernetes/fake"
)

type staticNodes []*corev1.Node

func (s staticNodes) List(labels.Selector) ([]*corev1.Node, error) { return s, nil }

// TestWaitNodesReadyFailsOnCIDRNotAvailable: a node without pod CIDRs and
// the server's CIDRNotAvailable event end the wait at once with the
// event's words, not after the timeout.
func TestWaitNodesReadyFailsOnCIDRNotAvailable(t *testing.T) {
	const msg = "Node n2 status is now: CIDRNotAvailable (… --cluster-cidr 10.244.0.0/24 holds 1 /24 subnets)"
	client := fake.NewClientset(&corev1.Event{
		ObjectMeta:     metav1.ObjectMeta{Namespace: "default", Name: "n2.1"},
		InvolvedObject: corev1.ObjectReference{Kind: "Node", Name: "n2"},
		Reason:         "CIDRNotAvailable", Message: msg, Type: corev1.EventTypeNormal,
	})
	ready := corev1.NodeStatus{Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}}
	nodes := staticNodes{
		{ObjectMeta: metav1.ObjectMeta{Name: "n1"}, Spec: corev1.NodeSpec{PodCIDRs: []string{"10.244.0.0/24"}}, Status: ready},
		{ObjectMeta: metav1.ObjectMeta{Name: "n2"}, Status: ready},
	}
	// An hour's timeout: only the event can end this wait in time.
	_, err := waitNodesReady(context.Background(), client, nodes, 2, time.Hour)
	if err == nil || !strings.Contains(err.Error(), msg) || !strings.Contains(err.Error(), "1 of 2 nodes without pod CIDRs") {
		t.Fatalf("err = %v", err)
	}

	// Without the event the wait goes on to its timeout.
	if _, err := waitNodesReady(context.Background(), fake.NewClientset(), nodes, 2, 300*time.Millisecond); err == nil || !strings.Contains(err.Error(), "after 300ms") {
		t.Fatalf("without the event: %v", err)
	}
}

func TestSawNotReadyKeepsTheFirst(t *testing.T) {
	t0 := time.Unix(100, 0)
	run := &benchRun{since: t0}
	run.sawNotReady(t0.Add(time.Second), nil)
	if run.firstNotReady != "" {
		t.Fatalf("no NotReady node: %q", run.firstNotReady)
	}
	run.sawNotReady(t0.Add(12*time.Second), []string{"a", "b", "c", "d", "e"})
	run.sawNotReady(t0.Add(20*time.Second), []string{"z"})
	if want := "12s in: a, b, c (+2)"; run.firstNotReady != want {
		t.Errorf("got %q, want %q", run.firstNotReady, want)
	}
}
