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

// insufficient returns upstream's NodeResourcesFit reasons (fitsRequest)
// for placing a pod requesting req on node whose pods already take used:
// "Too many pods" when its allocatable pod count is reached, "Insufficient
// cpu" / "Insufficient memory" when a non-zero request exceeds what is
// allocatable minus the requests of the pods there (a node without
// allocatable pods, cpu or memory has none of it).
func insufficient(node *corev1.Node, req, used usage) []string {
	alloc := node.Status.Allocatable
	var reasons []string
	if used.pods+1 > int(alloc.Pods().Value()) {
		reasons = append(reasons, "Too many pods")
	}
	if req.milliCPU > 0 && req.milliCPU > alloc.Cpu().MilliValue()-used.milliCPU {
		reasons = append(reasons, "Insufficient cpu")
	}
	if req.memoryBytes > 0 && req.memoryBytes > alloc.Memory().Value()-used.memoryBytes {
		reasons = append(reasons, "Insufficient memory")
	}
	return reasons
}

// pick returns the fitting node with the fewest pods (ties by name), or
// the reasons every node was refused, each counted once per node that
// gave it (a node may give several, as upstream's NodeResourcesFit).
// usedOn is what a node's pods take.
func pick(pod *corev1.Pod, nodes []*corev1.Node, usedOn func(node string) usage) (string, map[string]int) {
	req := requestsOf(pod, false)
	best, bestCount := "", 0
	reasons := map[string]int{}
	for _, n := range nodes {
		if r := unfit(pod, n); r != "" {
			reasons[r]++
			continue
		}
		used := usedOn(n.Name)
		if rs := insufficient(n, req, used); len(rs) > 0 {
			for _, r := range rs {
				reasons[r]++
			}
			continue
		}
		// One pass, no sort of the nodes (the lister's order is a map's):
		// at 1,000 nodes a sort per pod was most of a placement.
		if best == "" || used.pods < bestCount || (used.pods == bestCount && n.Name < best) {
			best, bestCount = n.Name, used.pods
		}
	}
	return best, reasons
}
