package scheduler

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func readyNode(name string, labels map[string]string, taints ...corev1.Taint) *corev1.Node {
	return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels},
		Spec:   corev1.NodeSpec{Taints: taints},
		Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}}}
}

func TestPick(t *testing.T) {
	gpu := readyNode("gpu", map[string]string{"gpu": "yes"})
	tainted := readyNode("tainted", nil, corev1.Taint{Key: "dedicated", Value: "db", Effect: corev1.TaintEffectNoSchedule})
	plainA, plainB := readyNode("a", nil), readyNode("b", nil)
	cordoned := readyNode("cordoned", nil)
	cordoned.Spec.Unschedulable = true
	notReady := readyNode("down", nil)
	notReady.Status.Conditions[0].Status = corev1.ConditionFalse
	nodes := func() []*corev1.Node { return []*corev1.Node{gpu, tainted, plainA, plainB, cordoned, notReady} }

	if got, _ := pick(&corev1.Pod{}, nodes(), counts(map[string]int{"a": 3, "b": 1, "gpu": 2})); got != "b" {
		t.Errorf("fewest pods: got %s, want b", got)
	}
	sel := &corev1.Pod{Spec: corev1.PodSpec{NodeSelector: map[string]string{"gpu": "yes"}}}
	if got, _ := pick(sel, nodes(), counts(nil)); got != "gpu" {
		t.Errorf("nodeSelector: got %s", got)
	}
	tol := &corev1.Pod{Spec: corev1.PodSpec{NodeSelector: map[string]string{}, Tolerations: []corev1.Toleration{
		{Key: "dedicated", Operator: corev1.TolerationOpEqual, Value: "db", Effect: corev1.TaintEffectNoSchedule}},
		Affinity: &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
			NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchFields: []corev1.NodeSelectorRequirement{
				{Key: "metadata.name", Operator: corev1.NodeSelectorOpIn, Values: []string{"tainted"}}}}}}}}}}
	if got, _ := pick(tol, nodes(), counts(nil)); got != "tainted" {
		t.Errorf("toleration + affinity: got %s", got)
	}
	none := &corev1.Pod{Spec: corev1.PodSpec{NodeSelector: map[string]string{"zone": "mars"}}}
	got, reasons := pick(none, nodes(), counts(nil))
	msg := failureMessage(len(nodes()), reasons)
	want := "0/6 nodes are available: 1 node(s) had untolerated taint {dedicated: db}, 1 node(s) were not ready, 1 node(s) were unschedulable, 3 node(s) didn't match Pod's node affinity/selector."
	if got != "" || msg != want {
		t.Errorf("no fit: got %q, message\n%s\nwant\n%s", got, msg, want)
	}
}

func counts(m map[string]int) func(string) int { return func(n string) int { return m[n] } }

func TestPickRespectsAllocatablePods(t *testing.T) {
	full, free := readyNode("full", nil), readyNode("free", nil)
	for _, n := range []*corev1.Node{full, free} {
		n.Status.Allocatable = corev1.ResourceList{corev1.ResourcePods: resource.MustParse("2")}
	}
	if got, _ := pick(&corev1.Pod{}, []*corev1.Node{full, free}, counts(map[string]int{"full": 2, "free": 1})); got != "free" {
		t.Fatalf("got %q, want free", got)
	}
	got, reasons := pick(&corev1.Pod{}, []*corev1.Node{full, free}, counts(map[string]int{"full": 2, "free": 2}))
	if msg := failureMessage(2, reasons); got != "" || msg != "0/2 nodes are available: 2 Too many pods." {
		t.Fatalf("got %q, %q", got, msg)
	}
}
