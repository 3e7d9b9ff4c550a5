package scheduler

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func readyNode(name string, labels map[string]string, taints ...corev1.Taint) *corev1.Node {
	return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels},
		Spec: corev1.NodeSpec{Taints: taints},
		Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}},
			Allocatable: corev1.ResourceList{corev1.ResourcePods: resource.MustParse("110"),
				corev1.ResourceCPU: resource.MustParse("4"), corev1.ResourceMemory: resource.MustParse("16Gi")}}}
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

func counts(m map[string]int) map[string]usage {
	u := map[string]usage{}
	for n, c := range m {
		u[n] = usage{pods: c}
	}
	return u
}

// pick places pod among nodes whose pods take used, through a podCache as
// the informers fill it: the nodes set, then one assumed pod per pod
// counted (the first one carries the node's cpu and memory).
func pick(pod *corev1.Pod, nodes []*corev1.Node, used map[string]usage) (string, map[string]int) {
	c := newPodCache()
	for _, n := range nodes {
		c.setNode(n)
	}
	for node, u := range used {
		for i := range u.pods {
			use := usage{pods: 1}
			if i == 0 {
				use.milliCPU, use.memoryBytes = u.milliCPU, u.memoryBytes
			}
			c.assume(fmt.Sprintf("ns/%s-%d", node, i), node, use)
		}
	}
	got, reasons, total := c.place(pod)
	if total != len(nodes) {
		panic(fmt.Sprintf("cache has %d nodes, want %d", total, len(nodes)))
	}
	return got, reasons
}

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

func podRequesting(cpu, mem string) *corev1.Pod {
	req := corev1.ResourceList{}
	if cpu != "" {
		req[corev1.ResourceCPU] = resource.MustParse(cpu)
	}
	if mem != "" {
		req[corev1.ResourceMemory] = resource.MustParse(mem)
	}
	return &corev1.Pod{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Resources: corev1.ResourceRequirements{Requests: req}}}}}
}

// TestPickResourceFit: upstream's NodeResourcesFit — a request must fit in
// allocatable minus the requests already on the node; every shortfall of a
// node is a reason of its own; a zero request always fits.
func TestPickResourceFit(t *testing.T) {
	a, b := readyNode("a", nil), readyNode("b", nil) // 4 cpu, 16Gi, 110 pods each
	used := func(m map[string]usage) map[string]usage { return m }
	cases := []struct {
		name     string
		pod      *corev1.Pod
		used     map[string]usage
		wantNode string
		wantMsg  string
	}{
		{"fits on the emptier node", podRequesting("1", "1Gi"), map[string]usage{"a": {2, 3000, 0}, "b": {1, 1000, 0}}, "b", ""},
		{"only a has the cpu left", podRequesting("1500m", ""), map[string]usage{"a": {5, 2500, 0}, "b": {1, 3000, 0}}, "a", ""},
		{"exactly the rest fits", podRequesting("1", "8Gi"), map[string]usage{"a": {1, 3000, 8 << 30}, "b": {1, 3001, 0}}, "a", ""},
		{"insufficient cpu everywhere", podRequesting("2", ""), map[string]usage{"a": {1, 3000, 0}, "b": {1, 2500, 0}}, "",
			"0/2 nodes are available: 2 Insufficient cpu."},
		{"more than any node has", podRequesting("5", "32Gi"), nil, "",
			"0/2 nodes are available: 2 Insufficient cpu, 2 Insufficient memory."},
		{"cpu on one, memory on the other", podRequesting("1", "4Gi"), map[string]usage{"a": {1, 3500, 0}, "b": {1, 0, 14 << 30}}, "",
			"0/2 nodes are available: 1 Insufficient cpu, 1 Insufficient memory."},
		{"no requests fit a full node", podRequesting("", ""), map[string]usage{"a": {1, 4000, 16 << 30}}, "b", ""},
		{"pods and cpu together", podRequesting("1", ""), map[string]usage{"a": {110, 4000, 0}, "b": {110, 0, 0}}, "",
			"0/2 nodes are available: 1 Insufficient cpu, 2 Too many pods."},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, reasons := pick(tc.pod, []*corev1.Node{a, b}, used(tc.used))
			msg := ""
			if got == "" {
				msg = failureMessage(2, reasons)
			}
			if got != tc.wantNode || msg != tc.wantMsg {
				t.Errorf("got %q %q, want %q %q", got, msg, tc.wantNode, tc.wantMsg)
			}
		})
	}
	// A node that reports no allocatable resources holds nothing, as upstream.
	bare := readyNode("bare", nil)
	bare.Status.Allocatable = nil
	if got, reasons := pick(podRequesting("100m", ""), []*corev1.Node{bare}, used(nil)); got != "" ||
		failureMessage(1, reasons) != "0/1 nodes are available: 1 Insufficient cpu, 1 Too many pods." {
		t.Errorf("bare node: %q %v", got, reasons)
	}
}

// TestRequestsOf: init containers, sidecars, overhead and pod-level
// resources count as resourcehelper.PodRequests counts them.
func TestRequestsOf(t *testing.T) {
	p := podRequesting("500m", "1Gi")
	p.Spec.InitContainers = []corev1.Container{{Name: "init", Resources: corev1.ResourceRequirements{
		Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2")}}}}
	p.Spec.Overhead = corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("100Mi")}
	if u := requestsOf(p, false); u.milliCPU != 2000 || u.memoryBytes != (1<<30)+(100<<20) || u.pods != 1 {
		t.Fatalf("requests %+v", u)
	}
}

// A tie on the pod count goes to the lowest name whatever order the
// lister returns the nodes in.
func TestPickTieByNameInAnyOrder(t *testing.T) {
	names := []string{"n3", "n1", "n4", "n2"}
	for i := range names {
		var ns []*corev1.Node
		for j := range names {
			ns = append(ns, readyNode(names[(i+j)%len(names)], nil))
		}
		// n1 is busier: n2 is the lowest name among the least loaded.
		if got, _ := pick(&corev1.Pod{}, ns, counts(map[string]int{"n1": 1})); got != "n2" {
			t.Errorf("order %v: got %s, want n2", ns[0].Name, got)
		}
	}
}
