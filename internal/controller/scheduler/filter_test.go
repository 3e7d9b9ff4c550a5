package scheduler

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
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

	if got, _ := pick(&corev1.Pod{}, nodes(), map[string]int{"a": 3, "b": 1, "gpu": 2}); got != "b" {
		t.Errorf("fewest pods: got %s, want b", got)
	}
	sel := &corev1.Pod{Spec: corev1.PodSpec{NodeSelector: map[string]string{"gpu": "yes"}}}
	if got, _ := pick(sel, nodes(), nil); got != "gpu" {
		t.Errorf("nodeSelector: got %s", got)
	}
	tol := &corev1.Pod{Spec: corev1.PodSpec{NodeSelector: map[string]string{}, Tolerations: []corev1.Toleration{
		{Key: "dedicated", Operator: corev1.TolerationOpEqual, Value: "db", Effect: corev1.TaintEffectNoSchedule}},
		Affinity: &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
			NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchFields: []corev1.NodeSelectorRequirement{
				{Key: "metadata.name", Operator: corev1.NodeSelectorOpIn, Values: []string{"tainted"}}}}}}}}}}
	if got, _ := pick(tol, nodes(), nil); got != "tainted" {
		t.Errorf("toleration + affinity: got %s", got)
	}
	none := &corev1.Pod{Spec: corev1.PodSpec{NodeSelector: map[string]string{"zone": "mars"}}}
	got, reasons := pick(none, nodes(), nil)
	msg := failureMessage(len(nodes()), reasons)
	want := "0/6 nodes are available: 1 node(s) had untolerated taint {dedicated: db}, 1 node(s) were not ready, 1 node(s) were unschedulable, 3 node(s) didn't match Pod's node affinity/selector."
	if got != "" || msg != want {
		t.Errorf("no fit: got %q, message\n%s\nwant\n%s", got, msg, want)
	}
}
