package drift

import (
	"fmt"
	"math/rand"
	"sort"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/kubernetes/pkg/controller"
	"k8s.io/utils/ptr"

	"github.com/svcplane/svcplane/internal/controller/replicaset"
)

// randomPod draws each field upstream's ActivePodsWithRanks looks at from
// a few values, so that ties at every rule are common.
func randomPod(r *rand.Rand, i int, now time.Time) *corev1.Pod {
	pick := func(n int) int { return r.Intn(n) }
	ago := []time.Duration{0, time.Second, 3 * time.Second, time.Minute, 65 * time.Minute, 70 * time.Minute, 30 * time.Hour}
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("p%d", i), UID: types.UID(fmt.Sprintf("%08x", r.Uint32()))}}
	if d := ago[pick(len(ago))]; d != 0 || pick(2) == 0 {
		p.CreationTimestamp = metav1.NewTime(now.Add(-d))
	}
	p.Spec.NodeName = []string{"", "a", "b", "c"}[pick(4)]
	p.Status.Phase = []corev1.PodPhase{"", corev1.PodPending, corev1.PodUnknown, corev1.PodRunning}[pick(4)]
	switch pick(3) {
	case 1:
		p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionFalse}}
	case 2:
		var t metav1.Time
		if d := ago[pick(len(ago))]; d != 0 {
			t = metav1.NewTime(now.Add(-d))
		}
		p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionTrue},
			{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: t}}
	}
	if c := []string{"", "0", "-3", "5", "+5", "007", "x", "99999999999"}[pick(8)]; c != "" {
		p.Annotations = map[string]string{corev1.PodDeletionCost: c}
	}
	if pick(2) == 0 {
		p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "c", RestartCount: int32(pick(3))}}
	}
	if pick(3) == 0 {
		policy := []*corev1.ContainerRestartPolicy{nil, ptr.To(corev1.ContainerRestartPolicyAlways)}[pick(2)]
		p.Spec.InitContainers = []corev1.Container{{Name: "side", RestartPolicy: policy}}
		p.Status.InitContainerStatuses = []corev1.ContainerStatus{{Name: "side", RestartCount: int32(pick(3))}}
	}
	if pick(5) == 0 {
		p.Status.Phase = corev1.PodSucceeded // counts as no related pod
	}
	return p
}

// TestPodDeletionOrder: svcplane's ReplicaSet controller picks the same
// pods to delete, in the same order, as upstream's ActivePodsWithRanks
// sort (getPodsToDelete ranks by active related pods on the same node).
func TestPodDeletionOrder(t *testing.T) {
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	r := rand.New(rand.NewSource(1))
	for round := 0; round < 500; round++ {
		n := 2 + r.Intn(12)
		pods := make([]*corev1.Pod, n)
		for i := range pods {
			pods[i] = randomPod(r, i, now)
		}
		related := append([]*corev1.Pod(nil), pods...)
		for i := 0; i < r.Intn(6); i++ {
			related = append(related, randomPod(r, 100+i, now))
		}
		onNode := map[string]int{}
		for _, p := range related {
			if controller.IsPodActive(p) {
				onNode[p.Spec.NodeName]++
			}
		}
		upstream := controller.ActivePodsWithRanks{Pods: append([]*corev1.Pod(nil), pods...), Rank: make([]int, n), Now: metav1.NewTime(now)}
		for i, p := range upstream.Pods {
			upstream.Rank[i] = onNode[p.Spec.NodeName]
		}
		sort.Sort(upstream)
		ours := replicaset.PodsToDelete(append([]*corev1.Pod(nil), pods...), related, n-1, metav1.NewTime(now))
		for i := range ours {
			if ours[i].Name != upstream.Pods[i].Name {
				t.Fatalf("round %d: position %d: ours %s, upstream %s\nours:     %v\nupstream: %v", round, i,
					ours[i].Name, upstream.Pods[i].Name, names(ours), names(upstream.Pods[:n-1]))
			}
		}
	}
}

func names(pods []*corev1.Pod) []string {
	out := make([]string, len(pods))
	for i, p := range pods {
		out[i] = p.Name
	}
	return out
}
