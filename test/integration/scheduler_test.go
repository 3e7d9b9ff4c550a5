package integration

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/svcplane/svcplane/test/integration/framework"
)

// TestScheduler runs its own server (so only its nodes count): pods spread
// over the Ready nodes, a nodeSelector is honoured, and a pod that fits
// nowhere stays Pending with a FailedScheduling event.
func TestScheduler(t *testing.T) {
	skipShort(t)
	s, err := framework.StartWith("", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	c := s.Client
	waitForDefaultServiceAccount(t, c, "default")
	for _, n := range []string{"s1", "s2"} {
		get(c.CoreV1().Nodes().Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: n,
			Labels: map[string]string{"name": n}},
			Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}},
				Allocatable: corev1.ResourceList{corev1.ResourcePods: resource.MustParse("110"),
					corev1.ResourceCPU: resource.MustParse("4"), corev1.ResourceMemory: resource.MustParse("16Gi")}}},
			metav1.CreateOptions{}))(t)
	}
	mk := func(name string, selector map[string]string) {
		get(c.CoreV1().Pods("default").Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: corev1.PodSpec{NodeSelector: selector, Containers: []corev1.Container{{Name: "c", Image: "x"}}}}, metav1.CreateOptions{}))(t)
	}
	for _, n := range []string{"p1", "p2", "p3", "p4"} {
		mk(n, nil)
	}
	mk("pinned", map[string]string{"name": "s2"})
	mk("nowhere", map[string]string{"name": "mars"})
	perNode := map[string]int{}
	eventually(t, "five pods bound", func() bool {
		clear(perNode)
		for _, p := range get(c.CoreV1().Pods("default").List(ctx, metav1.ListOptions{}))(t).Items {
			if p.Spec.NodeName != "" {
				perNode[p.Spec.NodeName]++
			}
		}
		return perNode["s1"]+perNode["s2"] == 5
	})
	if perNode["s1"] < 2 || perNode["s2"] < 2 {
		t.Fatalf("pods not spread: %v", perNode)
	}
	if p := get(c.CoreV1().Pods("default").Get(ctx, "pinned", metav1.GetOptions{}))(t); p.Spec.NodeName != "s2" {
		t.Fatalf("nodeSelector ignored: on %q", p.Spec.NodeName)
	}
	eventually(t, "a FailedScheduling event", func() bool {
		evs := get(c.CoreV1().Events("default").List(ctx, metav1.ListOptions{FieldSelector: "involvedObject.name=nowhere,reason=FailedScheduling"}))(t)
		return len(evs.Items) > 0 && strings.Contains(evs.Items[0].Message, "0/2 nodes are available: 2 node(s) didn't match Pod's node affinity/selector.")
	})
	if p := get(c.CoreV1().Pods("default").Get(ctx, "nowhere", metav1.GetOptions{}))(t); p.Spec.NodeName != "" || p.Status.Phase != corev1.PodPending {
		t.Fatalf("unschedulable pod: node %q phase %s", p.Spec.NodeName, p.Status.Phase)
	}
	eventually(t, "PodScheduled=False Unschedulable", func() bool {
		p := get(c.CoreV1().Pods("default").Get(ctx, "nowhere", metav1.GetOptions{}))(t)
		for _, cond := range p.Status.Conditions {
			if cond.Type == corev1.PodScheduled && cond.Status == corev1.ConditionFalse && cond.Reason == "Unschedulable" &&
				cond.Message == "0/2 nodes are available: 2 node(s) didn't match Pod's node affinity/selector." {
				return true
			}
		}
		return false
	})

	// More cpu than either node has left: upstream's NodeResourcesFit.
	get(c.CoreV1().Pods("default").Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "greedy"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "x", Resources: corev1.ResourceRequirements{
			Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("5")}}}}}}, metav1.CreateOptions{}))(t)
	eventually(t, "Insufficient cpu", func() bool {
		evs := get(c.CoreV1().Events("default").List(ctx, metav1.ListOptions{FieldSelector: "involvedObject.name=greedy,reason=FailedScheduling"}))(t)
		return len(evs.Items) > 0 && evs.Items[0].Message == "0/2 nodes are available: 2 Insufficient cpu."
	})

	// Scheduling gates: the API server marks the pod SchedulingGated, the
	// scheduler leaves it; removing the gate lets it be bound.
	gated := get(c.CoreV1().Pods("default").Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "gated"},
		Spec: corev1.PodSpec{SchedulingGates: []corev1.PodSchedulingGate{{Name: "example.com/wait"}},
			Containers: []corev1.Container{{Name: "c", Image: "x"}}}}, metav1.CreateOptions{}))(t)
	if len(gated.Status.Conditions) != 1 || gated.Status.Conditions[0].Reason != "SchedulingGated" ||
		gated.Status.Conditions[0].Message != "Scheduling is blocked due to non-empty scheduling gates" {
		t.Fatalf("gated pod conditions %+v", gated.Status.Conditions)
	}
	gated.Spec.SchedulingGates = []corev1.PodSchedulingGate{{Name: "example.com/wait"}, {Name: "example.com/more"}}
	if _, err := c.CoreV1().Pods("default").Update(ctx, gated, metav1.UpdateOptions{}); err == nil ||
		!strings.Contains(err.Error(), "only deletion is allowed, but found new scheduling gate 'example.com/more'") {
		t.Fatalf("adding a gate: %v", err)
	}
	if p := get(c.CoreV1().Pods("default").Get(ctx, "gated", metav1.GetOptions{}))(t); p.Spec.NodeName != "" {
		t.Fatalf("gated pod bound to %s", p.Spec.NodeName)
	}
	get(c.CoreV1().Pods("default").Patch(ctx, "gated", types.JSONPatchType,
		[]byte(`[{"op":"remove","path":"/spec/schedulingGates"}]`), metav1.PatchOptions{}))(t)
	eventually(t, "the ungated pod bound", func() bool {
		p := get(c.CoreV1().Pods("default").Get(ctx, "gated", metav1.GetOptions{}))(t)
		return p.Spec.NodeName != ""
	})
}
