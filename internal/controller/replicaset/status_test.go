package replicaset

import (
	"context"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/workqueue"
	testingclock "k8s.io/utils/clock/testing"
)

// recordingQueue records what is added after a delay.
type recordingQueue struct {
	workqueue.TypedRateLimitingInterface[string]
	after map[string]time.Duration
}

func (q *recordingQueue) AddAfter(key string, d time.Duration) { q.after[key] = d }

// A sync that finds a ready pod not yet available, with the status
// already saying so (nothing to write), still comes back after
// MinReadySeconds; once the pod is available it is not queued again.
func TestResyncWhileReadyPodsAreNotAvailable(t *testing.T) {
	now := time.Date(2026, 11, 26, 23, 6, 0, 0, time.UTC)
	rs := &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "web", Generation: 2},
		Spec:   appsv1.ReplicaSetSpec{MinReadySeconds: 10},
		Status: appsv1.ReplicaSetStatus{Replicas: 1, FullyLabeledReplicas: 1, ReadyReplicas: 1, ObservedGeneration: 2}}
	readyFor := func(d time.Duration) *corev1.Pod {
		return &corev1.Pod{Status: corev1.PodStatus{Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue,
			LastTransitionTime: metav1.NewTime(now.Add(-d))}}}}
	}
	for _, tc := range []struct {
		name      string
		available int32
		pod       *corev1.Pod
		want      time.Duration
	}{
		{"ready 9 s, status already says not available", 0, readyFor(9 * time.Second), 10 * time.Second},
		{"ready 11 s, status already says available", 1, readyFor(11 * time.Second), 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := &recordingQueue{after: map[string]time.Duration{}}
			c := &Controller{queue: q, clock: testingclock.NewFakeClock(now)}
			rs := rs.DeepCopy()
			rs.Status.AvailableReplicas = tc.available
			if err := c.updateStatus(context.Background(), rs, []*corev1.Pod{tc.pod}, nil); err != nil {
				t.Fatal(err)
			}
			if got := q.after["ns/web"]; got != tc.want {
				t.Errorf("queued again after %v, want %v", got, tc.want)
			}
		})
	}
}
