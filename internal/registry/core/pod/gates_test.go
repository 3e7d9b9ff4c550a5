package pod

import (
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func gatedPod(gates ...string) *corev1.Pod {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}}}
	for _, g := range gates {
		p.Spec.SchedulingGates = append(p.Spec.SchedulingGates, corev1.PodSchedulingGate{Name: g})
	}
	DefaultPodSpec(&p.Spec)
	return p
}

// TestSchedulingGatedCondition: kube-apiserver's pod strategy gives a pod
// created with gates PodScheduled=False SchedulingGated; one without gates
// gets no condition.
func TestSchedulingGatedCondition(t *testing.T) {
	def := Definition()
	p := gatedPod("example.com/a")
	p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionTrue}} // a client's: reset
	def.PrepareForCreate(context.Background(), p)
	if len(p.Status.Conditions) != 1 {
		t.Fatalf("conditions %+v", p.Status.Conditions)
	}
	c := p.Status.Conditions[0]
	if c.Type != corev1.PodScheduled || c.Status != corev1.ConditionFalse || c.Reason != "SchedulingGated" ||
		c.Message != "Scheduling is blocked due to non-empty scheduling gates" || c.LastTransitionTime.IsZero() {
		t.Fatalf("condition %+v", c)
	}
	if row(p)[1] != "SchedulingGated" {
		t.Errorf("STATUS column %v, want SchedulingGated", row(p)[1])
	}
	plain := gatedPod()
	def.PrepareForCreate(context.Background(), plain)
	if len(plain.Status.Conditions) != 0 {
		t.Fatalf("ungated pod got %+v", plain.Status.Conditions)
	}
}

// TestSchedulingGatesOnlyGo: an update may remove gates, not add them.
func TestSchedulingGatesOnlyGo(t *testing.T) {
	old := gatedPod("a", "b")
	if errs := validateUpdate(context.Background(), gatedPod("b"), old); len(errs) != 0 {
		t.Fatalf("removing a gate: %v", errs)
	}
	if errs := validateUpdate(context.Background(), gatedPod(), old); len(errs) != 0 {
		t.Fatalf("removing every gate: %v", errs)
	}
	errs := validateUpdate(context.Background(), gatedPod("a", "c"), old)
	if len(errs) != 1 || errs[0].Field != "spec.schedulingGates[1].name" ||
		!strings.Contains(errs[0].Detail, "only deletion is allowed, but found new scheduling gate 'c'") {
		t.Fatalf("adding a gate: %v", errs)
	}
}

func TestBindRefusesAGatedPod(t *testing.T) {
	_, err := bind(gatedPod("a"), &corev1.Binding{Target: corev1.ObjectReference{Kind: "Node", Name: "n"}})
	if !apierrors.IsConflict(err) || !strings.Contains(err.Error(), "pod p has non-empty .spec.schedulingGates") {
		t.Fatalf("bind: %v", err)
	}
}
