package replicaset

import (
	"math"
	"sort"
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
)

// The order in which a ReplicaSet gives up pods when it scales down is
// upstream's (pkg/controller: ActivePodsWithRanks.Less with PodDeletionCost
// and LogarithmicScaleDown on, as they are in 1.36; pkg/controller/replicaset:
// getPodsToDelete, getIndirectlyRelatedPods).

var phaseOrdinal = map[corev1.PodPhase]int{corev1.PodPending: 0, corev1.PodUnknown: 1, corev1.PodRunning: 2}

// rankedPods sorts pods most-deletable first; rank[i] counts the active
// related pods on pods[i]'s node.
type rankedPods struct {
	pods []*corev1.Pod
	rank []int
	now  metav1.Time
}

func (s rankedPods) Len() int { return len(s.pods) }

func (s rankedPods) Swap(i, j int) {
	s.pods[i], s.pods[j] = s.pods[j], s.pods[i]
	s.rank[i], s.rank[j] = s.rank[j], s.rank[i]
}

// Less: unassigned < assigned; Pending < Unknown < Running; not ready <
// ready; lower pod-deletion-cost; more co-located related pods; ready for
// less time (log2 buckets of the time since, then UID); more container
// restarts (then more sidecar restarts); newer (log2 buckets, then UID).
func (s rankedPods) Less(i, j int) bool {
	pi, pj := s.pods[i], s.pods[j]
	if pi.Spec.NodeName != pj.Spec.NodeName && (pi.Spec.NodeName == "" || pj.Spec.NodeName == "") {
		return pi.Spec.NodeName == ""
	}
	if oi, oj := phaseOrdinal[pi.Status.Phase], phaseOrdinal[pj.Status.Phase]; oi != oj {
		return oi < oj
	}
	ri, rj := podReady(pi), podReady(pj)
	if ri != rj {
		return !ri
	}
	if ci, cj := deletionCost(pi), deletionCost(pj); ci != cj {
		return ci < cj
	}
	if s.rank[i] != s.rank[j] {
		return s.rank[i] > s.rank[j]
	}
	if ri && rj {
		ti, tj := readyTime(pi), readyTime(pj)
		if !ti.Equal(&tj) {
			return s.newer(pi, pj, ti, tj)
		}
	}
	xi, si := maxRestarts(pi)
	xj, sj := maxRestarts(pj)
	if xi != xj {
		return xi > xj
	}
	if si != sj {
		return si > sj
	}
	if !pi.CreationTimestamp.Equal(&pj.CreationTimestamp) {
		return s.newer(pi, pj, pi.CreationTimestamp, pj.CreationTimestamp)
	}
	return false
}

// newer orders by time, the more recent (or zero) first; two non-zero
// times in the same power-of-two bucket of age are ordered by pod UID.
func (s rankedPods) newer(pi, pj *corev1.Pod, ti, tj metav1.Time) bool {
	if s.now.IsZero() || ti.IsZero() || tj.IsZero() {
		if ti.IsZero() || tj.IsZero() {
			return ti.IsZero()
		}
		return ti.After(tj.Time)
	}
	if d := log2Age(ti, s.now) - log2Age(tj, s.now); d != 0 {
		return d < 0
	}
	return pi.UID < pj.UID
}

func log2Age(t, now metav1.Time) int64 {
	if d := now.Sub(t.Time); d > 0 {
		return int64(math.Log2(float64(d)))
	}
	return -1
}

// deletionCost is the controller.kubernetes.io/pod-deletion-cost
// annotation as upstream reads it: an int32 without a plus sign or
// leading zeros, else 0.
func deletionCost(p *corev1.Pod) int32 {
	v, ok := p.Annotations[corev1.PodDeletionCost]
	if !ok || v == "" || !(v[0] == '-' || v == "0" || (v[0] >= '1' && v[0] <= '9')) {
		return 0
	}
	n, err := strconv.ParseInt(v, 10, 32)
	if err != nil {
		return 0
	}
	return int32(n)
}

// readyTime is the Ready condition's last transition of a ready pod.
func readyTime(p *corev1.Pod) metav1.Time {
	if podReady(p) {
		for _, c := range p.Status.Conditions {
			if c.Type == corev1.PodReady && c.Status == corev1.ConditionTrue {
				return c.LastTransitionTime
			}
		}
	}
	return metav1.Time{}
}

// maxRestarts is the highest restart count of the regular containers and
// of the sidecars (init containers with restartPolicy Always).
func maxRestarts(p *corev1.Pod) (regular, sidecar int32) {
	for _, c := range p.Status.ContainerStatuses {
		regular = max(regular, c.RestartCount)
	}
	sidecars := map[string]bool{}
	for _, c := range p.Spec.InitContainers {
		if c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways {
			sidecars[c.Name] = true
		}
	}
	for _, c := range p.Status.InitContainerStatuses {
		if sidecars[c.Name] {
			sidecar = max(sidecar, c.RestartCount)
		}
	}
	return regular, sidecar
}

// PodsToDelete picks diff of pods (sorting them in place unless all go),
// ranking each by the active related pods on its node.
func PodsToDelete(pods, related []*corev1.Pod, diff int, now metav1.Time) []*corev1.Pod {
	if diff < len(pods) {
		onNode := map[string]int{}
		for _, p := range related {
			if active(p) {
				onNode[p.Spec.NodeName]++
			}
		}
		rank := make([]int, len(pods))
		for i, p := range pods {
			rank[i] = onNode[p.Spec.NodeName]
		}
		sort.Sort(rankedPods{pods: pods, rank: rank, now: now})
	}
	return pods[:diff]
}

// relatedPods are the pods selected by every ReplicaSet with rs's
// controller (a Deployment's old and new ones; rs among them), each once;
// none for a ReplicaSet without a controller, as upstream.
func relatedPods(rs *appsv1.ReplicaSet, sets []*appsv1.ReplicaSet, all []*corev1.Pod) []*corev1.Pod {
	ref := metav1.GetControllerOfNoCopy(rs)
	if ref == nil {
		return nil
	}
	var out []*corev1.Pod
	seen := map[types.UID]bool{}
	for _, other := range sets {
		if r := metav1.GetControllerOfNoCopy(other); r == nil || r.UID != ref.UID {
			continue
		}
		sel, err := metav1.LabelSelectorAsSelector(other.Spec.Selector)
		if err != nil {
			continue
		}
		for _, p := range all {
			if !seen[p.UID] && sel.Matches(labels.Set(p.Labels)) {
				seen[p.UID] = true
				out = append(out, p)
			}
		}
	}
	return out
}
