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
// filter order (unschedulable, taints, node affinity). affinity is the
// pod's required node affinity (nodeaffinity.GetRequiredNodeAffinity).
func unfit(pod *corev1.Pod, affinity nodeaffinity.RequiredNodeAffinity, n *nodeFacts) string {
	node := n.node
	if node.Spec.Unschedulable {
		return "node(s) were unschedulable"
	}
	if !n.ready {
		return "node(s) were not ready"
	}
	taint, bad := corev1helpers.FindMatchingUntoleratedTaint(klog.Background(), node.Spec.Taints, pod.Spec.Tolerations,
		func(t *corev1.Taint) bool {
			return t.Effect == corev1.TaintEffectNoSchedule || t.Effect == corev1.TaintEffectNoExecute
		}, false)
	if bad {
		return fmt.Sprintf("node(s) had untolerated taint {%s: %s}", taint.Key, taint.Value)
	}
	if ok, err := affinity.Match(node); !ok || err != nil {
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
func insufficient(n *nodeFacts, req, used usage) []string {
	var reasons []string
	if int64(used.pods)+1 > n.pods {
		reasons = append(reasons, "Too many pods")
	}
	if req.milliCPU > 0 && req.milliCPU > n.milliCPU-used.milliCPU {
		reasons = append(reasons, "Insufficient cpu")
	}
	if req.memoryBytes > 0 && req.memoryBytes > n.memBytes-used.memoryBytes {
		reasons = append(reasons, "Insufficient memory")
	}
	return reasons
}

// place returns the fitting node with the fewest pods (ties by name), or
// the reasons every node was refused, each counted once per node that
// gave it (a node may give several, as upstream's NodeResourcesFit), and
// the number of nodes. It tries the nodes in that order (nodeOrder) and
// stops at the first that fits, so a placement visits every node only
// when few or none fit.
func (c *podCache) place(pod *corev1.Pod) (node string, reasons map[string]int, total int) {
	req := requestsOf(pod, false)
	affinity := nodeaffinity.GetRequiredNodeAffinity(pod)
	c.mu.Lock()
	defer c.mu.Unlock()
	refused := func(r string) {
		if reasons == nil {
			reasons = map[string]int{}
		}
		reasons[r]++
	}
	c.order.ascend(func(n *nodeFacts) bool {
		if r := unfit(pod, affinity, n); r != "" {
			refused(r)
			return true
		}
		rs := insufficient(n, req, c.usedLocked(n.node.Name))
		for _, r := range rs {
			refused(r)
		}
		if len(rs) == 0 {
			node = n.node.Name
		}
		return len(rs) > 0
	})
	return node, reasons, c.order.len()
}
