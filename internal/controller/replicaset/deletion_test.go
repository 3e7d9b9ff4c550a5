package replicaset

import (
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
)

var now = time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)

// pod is a ready Running pod on node n, created and ready an hour ago.
func pod(name string, mut ...func(*corev1.Pod)) *corev1.Pod {
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID(name), Namespace: "ns", Labels: map[string]string{"app": "web"},
			CreationTimestamp: metav1.NewTime(now.Add(-time.Hour))},
		Spec: corev1.PodSpec{NodeName: "n"},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, Conditions: []corev1.PodCondition{
			{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: metav1.NewTime(now.Add(-time.Hour))}}},
	}
	for _, m := range mut {
		m(p)
	}
	return p
}

func onNode(n string) func(*corev1.Pod)          { return func(p *corev1.Pod) { p.Spec.NodeName = n } }
func phase(ph corev1.PodPhase) func(*corev1.Pod) { return func(p *corev1.Pod) { p.Status.Phase = ph } }
func notReady(p *corev1.Pod)                     { p.Status.Conditions[0].Status = corev1.ConditionFalse }
func cost(v string) func(*corev1.Pod) {
	return func(p *corev1.Pod) { p.Annotations = map[string]string{corev1.PodDeletionCost: v} }
}
func created(ago time.Duration) func(*corev1.Pod) {
	return func(p *corev1.Pod) { p.CreationTimestamp = metav1.NewTime(now.Add(-ago)) }
}
func readyFor(ago time.Duration) func(*corev1.Pod) {
	return func(p *corev1.Pod) { p.Status.Conditions[0].LastTransitionTime = metav1.NewTime(now.Add(-ago)) }
}
func restarts(n int32) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "c", RestartCount: n}}
	}
}
func sidecarRestarts(n int32) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		p.Spec.InitContainers = []corev1.Container{{Name: "side", RestartPolicy: ptr.To(corev1.ContainerRestartPolicyAlways)}}
		p.Status.InitContainerStatuses = []corev1.ContainerStatus{{Name: "side", RestartCount: n}}
	}
}

// TestDeletionOrder: for each rule of upstream's ActivePodsWithRanks, the
// pod "first" is deleted before "second" (and the order does not depend
// on which comes first in the input), the ranks being the co-located pods.
func TestDeletionOrder(t *testing.T) {
	cases := []struct {
		name          string
		first, second *corev1.Pod
		ranks         [2]int // first's, second's
	}{
		{"unassigned before assigned", pod("a", onNode(""), phase(corev1.PodRunning)), pod("b", phase(corev1.PodPending), notReady), [2]int{}},
		{"pending before unknown", pod("a", phase(corev1.PodPending)), pod("b", phase(corev1.PodUnknown)), [2]int{}},
		{"unknown before running", pod("a", phase(corev1.PodUnknown)), pod("b"), [2]int{}},
		{"no phase counts as pending", pod("a", phase("")), pod("b", phase(corev1.PodUnknown)), [2]int{}},
		{"not ready before ready", pod("a", notReady, cost("100")), pod("b", cost("-100")), [2]int{}},
		{"lower deletion cost first", pod("a", cost("-5"), created(10*time.Hour)), pod("b"), [2]int{}},
		{"deletion cost beats co-location", pod("a", cost("1")), pod("b", cost("2")), [2]int{1, 5}},
		{"invalid cost +5 is 0", pod("a", cost("+5")), pod("b", cost("1")), [2]int{}},
		{"invalid cost 007 is 0", pod("a", cost("007")), pod("b", cost("1")), [2]int{}},
		{"cost out of int32 is 0", pod("a", cost("4294967296")), pod("b", cost("1")), [2]int{}},
		{"more co-located pods first", pod("a", readyFor(time.Minute)), pod("b", readyFor(time.Second)), [2]int{3, 2}},
		{"ready more recently first", pod("a", readyFor(time.Minute)), pod("b", readyFor(time.Hour)), [2]int{}},
		{"same log2 bucket of ready time: UID", pod("a", readyFor(65*time.Minute)), pod("b", readyFor(70*time.Minute), restarts(9)), [2]int{}},
		{"more restarts first", pod("a", restarts(3), created(2*time.Hour)), pod("b", restarts(2)), [2]int{}},
		{"more sidecar restarts first", pod("a", sidecarRestarts(1), created(2*time.Hour)), pod("b"), [2]int{}},
		{"ready time before restarts", pod("a", readyFor(time.Second)), pod("b", restarts(5)), [2]int{}},
		{"newer first", pod("a", created(time.Minute)), pod("b", created(time.Hour)), [2]int{}},
		{"zero creation time first", pod("a", created(0), func(p *corev1.Pod) { p.CreationTimestamp = metav1.Time{} }), pod("b", created(time.Minute)), [2]int{}},
		{"same log2 bucket of age: UID", pod("b0", created(65*time.Minute)), pod("b1", created(70*time.Minute)), [2]int{}},
		{"not ready pods: restarts before age", pod("a", notReady, restarts(1), created(time.Hour)), pod("b", notReady, created(time.Second)), [2]int{}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for _, swap := range []bool{false, true} {
				s := rankedPods{pods: []*corev1.Pod{tc.first, tc.second}, rank: []int{tc.ranks[0], tc.ranks[1]}, now: metav1.NewTime(now)}
				if swap {
					s.Swap(0, 1)
				}
				got := PodsToDelete(append([]*corev1.Pod(nil), s.pods...), nil, 1, s.now)
				// podsToDelete ranks by related pods; compare with the ranks given instead.
				if tc.ranks == [2]int{} && got[0].Name != tc.first.Name {
					t.Errorf("swap=%v: deleted %s first, want %s", swap, got[0].Name, tc.first.Name)
				}
				i, j := 0, 1
				if swap {
					i, j = 1, 0
				}
				if !s.Less(i, j) || s.Less(j, i) {
					t.Errorf("swap=%v: Less(first, second)=%v Less(second, first)=%v", swap, s.Less(i, j), s.Less(j, i))
				}
			}
		})
	}
}

// TestPodsToDeleteRanksBySiblingsOnTheNode: a Deployment's ReplicaSet
// gives up first its pods on the node where the Deployment's pods (of
// every ReplicaSet) are most crowded; a ReplicaSet without a controller
// ranks nothing (as upstream) and falls through to age.
func TestPodsToDeleteRanksBySiblingsOnTheNode(t *testing.T) {
	owner := metav1.OwnerReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "web", UID: "d1", Controller: ptr.To(true)}
	rs := func(name, hash string) *appsv1.ReplicaSet {
		return &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns", OwnerReferences: []metav1.OwnerReference{owner}},
			Spec: appsv1.ReplicaSetSpec{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web", "h": hash}}}}
	}
	label := func(h string) func(*corev1.Pod) {
		return func(p *corev1.Pod) { p.Labels = map[string]string{"app": "web", "h": h} }
	}
	newRS, oldRS := rs("web-new", "new"), rs("web-old", "old")
	unrelated := rs("other", "x")
	unrelated.OwnerReferences = nil

	mine := []*corev1.Pod{
		pod("m-a", label("new"), onNode("a"), created(time.Minute)), // 1 of ours + 0 old on a
		pod("m-b", label("new"), onNode("b"), created(2*time.Hour)), // with two old pods on b
		pod("m-c", label("new"), onNode("c"), created(2*time.Hour)), // with one old pod on c
	}
	all := append([]*corev1.Pod{
		pod("o-b1", label("old"), onNode("b")), pod("o-b2", label("old"), onNode("b")),
		pod("o-c1", label("old"), onNode("c")),
		pod("o-a-gone", label("old"), onNode("a"), phase(corev1.PodSucceeded)), // not active: not counted
		pod("x-a1", label("x"), onNode("a")), pod("x-a2", label("x"), onNode("a")), pod("x-a3", label("x"), onNode("a")),
	}, mine...)
	sets := []*appsv1.ReplicaSet{newRS, oldRS, unrelated}

	related := relatedPods(newRS, sets, all)
	if len(related) != 7 {
		t.Fatalf("related pods: %d, want the 3 new and 4 old", len(related))
	}
	got := PodsToDelete(append([]*corev1.Pod(nil), mine...), related, 2, metav1.NewTime(now))
	if got[0].Name != "m-b" || got[1].Name != "m-c" {
		t.Errorf("deleted %s, %s; want m-b (3 on its node), m-c (2)", got[0].Name, got[1].Name)
	}

	alone := newRS.DeepCopy()
	alone.OwnerReferences = nil
	if r := relatedPods(alone, sets, all); r != nil {
		t.Fatalf("a ReplicaSet without a controller has no related pods, got %d", len(r))
	}
	got = PodsToDelete(append([]*corev1.Pod(nil), mine...), nil, 1, metav1.NewTime(now))
	if got[0].Name != "m-a" {
		t.Errorf("without ranks the newest goes first, got %s", got[0].Name)
	}
}
