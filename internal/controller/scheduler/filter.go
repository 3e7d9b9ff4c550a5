package scheduler

import (
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
	"k8s.io/klog/v2"
)

// unfit returns why node cannot run pod ("" when it can), in upstream's
// per-node reason wording; the first failing check counts, in upstream's
// filter order (unschedulable, taints, node affinity).
func unfit(pod *corev1.Pod, node *corev1.Node) string {
	if node.Spec.Unschedulable {
		return "node(s) were unschedulable"
	}
	if !ready(node) {
		return "node(s) were not ready"
	}
	taint, bad := corev1helpers.FindMatchingUntoleratedTaint(klog.Background(), node.Spec.Taints, pod.Spec.Tolerations,
		func(t *corev1.Taint) bool {
			return t.Effect == corev1.TaintEffectNoSchedule || t.Effect == corev1.TaintEffectNoExecute
		}, false)
	if bad {
		return fmt.Sprintf("node(s) had untolerated taint {%s: %s}", taint.Key, taint.Value)
	}
	if ok, err := nodeaffinity.GetRequiredNodeAffinity(pod).Match(node); !ok || err != nil {
		return "node(s) didn't match Pod's node affinity/selector"
	}
	return ""
}

func ready(node *corev1.Node) bool {
	for _, c := range node.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// failureMessage is upstream's "0/N nodes are available: …" text.
func failureMessage(total int, reasons map[string]int) string {
	if total == 0 {
		return "no nodes available to schedule pods"
	}
	var parts []string
	for r, n := range reasons {
		parts = append(parts, fmt.Sprintf("%d %s", n, r))
	}
	sort.Strings(parts)
	return fmt.Sprintf("0/%d nodes are available: %s.", total, strings.Join(parts, ", "))
}

// tooManyPods is upstream's NodeResourcesFit reason for a node whose
// allocatable pods are all taken.
const tooManyPods = "Too many pods"

// pick returns the fitting node with the fewest pods (ties by name), or
// the reasons every node was refused. podsOn counts a node's pods; a node
// whose allocatable pod count is reached does not fit.
func pick(pod *corev1.Pod, nodes []*corev1.Node, podsOn func(node string) int) (string, map[string]int) {
	sort.Slice(nodes, func(i, j int) bool { return nodes[i].Name < nodes[j].Name })
	best, bestCount := "", 0
	reasons := map[string]int{}
	for _, n := range nodes {
		if r := unfit(pod, n); r != "" {
			reasons[r]++
			continue
		}
		count := podsOn(n.Name)
		if q, ok := n.Status.Allocatable[corev1.ResourcePods]; ok && int64(count) >= q.Value() {
			reasons[tooManyPods]++
			continue
		}
		if best == "" || count < bestCount {
			best, bestCount = n.Name, count
		}
	}
	return best, reasons
}
