package replicaset

import (
	"errors"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	testingclock "k8s.io/utils/clock/testing"
)

func TestSlowStartStopsAfterAFailingBatch(t *testing.T) {
	calls := 0
	made, err := slowStart(10, func() error {
		calls++
		if calls == 3 { // fails inside the second batch (calls 2-3)
			return errors.New("quota")
		}
		return nil
	})
	if err == nil || made != 3 || calls != 3 {
		t.Fatalf("made %d calls %d err %v; want batches 1+2 then stop", made, calls, err)
	}
	made, err = slowStart(10, func() error { return nil })
	if err != nil || made != 10 {
		t.Fatalf("made %d, %v", made, err)
	}
}

func TestDeletionOrder(t *testing.T) {
	old, young := metav1.NewTime(time.Unix(100, 0)), metav1.NewTime(time.Unix(200, 0))
	readyRunning := func(name string, ts metav1.Time) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, CreationTimestamp: ts}, Spec: corev1.PodSpec{NodeName: "n"},
			Status: corev1.PodStatus{Phase: corev1.PodRunning, Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}}}
	}
	unassigned := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "unassigned"}, Status: corev1.PodStatus{Phase: corev1.PodPending}}
	notReady := readyRunning("not-ready", old)
	notReady.Status.Conditions[0].Status = corev1.ConditionFalse
	got := deletionOrder([]*corev1.Pod{readyRunning("old", old), readyRunning("young", young), notReady, unassigned})
	want := []string{"unassigned", "not-ready", "young", "old"}
	for i, p := range got {
		if p.Name != want[i] {
			t.Fatalf("order %d: %s, want %v", i, p.Name, want)
		}
	}
}

func TestExpectations(t *testing.T) {
	clk := testingclock.NewFakeClock(time.Now())
	e := newExpectations(clk)
	e.expect("a/rs", 2, 0)
	if e.satisfied("a/rs") {
		t.Fatal("pending creations must hold the ReplicaSet back")
	}
	e.observe("a/rs", 2, 0)
	if !e.satisfied("a/rs") {
		t.Fatal("all creations observed")
	}
	e.expect("a/rs", 0, 1)
	clk.Step(expectationsTTL + time.Second)
	if !e.satisfied("a/rs") {
		t.Fatal("expectations must expire")
	}
}
