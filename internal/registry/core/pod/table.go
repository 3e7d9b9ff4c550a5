package pod

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/svcplane/svcplane/internal/registry/resource"
)

var columns = []metav1.TableColumnDefinition{
	resource.Column("Ready", "string", 0, "The aggregate readiness state of this pod for accepting traffic."),
	resource.Column("Status", "string", 0, "The aggregate status of the containers in this pod."),
	resource.Column("Restarts", "string", 0, "The number of times the containers in this pod have been restarted and when the last container in this pod has restarted."),
	resource.AgeColumn,
	resource.Column("IP", "string", 1, "IP address allocated to the pod. Routable at least within the cluster. Empty if not yet allocated."),
	resource.Column("Node", "string", 1, "NodeName is a request to schedule this pod onto a specific node."),
	resource.Column("Nominated Node", "string", 1, "nominatedNodeName is set only when this pod preempts other pods on the node."),
	resource.Column("Readiness Gates", "string", 1, "If specified, all readiness gates will be evaluated for pod readiness."),
}

func row(obj runtime.Object) []interface{} {
	p := obj.(*corev1.Pod)
	ready, restarts := 0, int32(0)
	reason := string(p.Status.Phase)
	if p.Status.Reason != "" {
		reason = p.Status.Reason
	}
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodScheduled && c.Reason == corev1.PodReasonSchedulingGated {
			reason = corev1.PodReasonSchedulingGated
		}
	}
	for _, cs := range p.Status.ContainerStatuses {
		restarts += cs.RestartCount
		switch {
		case cs.State.Waiting != nil && cs.State.Waiting.Reason != "":
			reason = cs.State.Waiting.Reason
		case cs.State.Terminated != nil && cs.State.Terminated.Reason != "":
			reason = cs.State.Terminated.Reason
		case cs.Ready && cs.State.Running != nil:
			ready++
		}
	}
	if p.DeletionTimestamp != nil {
		reason = "Terminating"
		if p.Status.Reason == "NodeLost" {
			reason = "Unknown"
		}
	}
	ip, node, nominated := "<none>", "<none>", "<none>"
	if len(p.Status.PodIPs) > 0 {
		ip = p.Status.PodIPs[0].IP
	}
	if p.Spec.NodeName != "" {
		node = p.Spec.NodeName
	}
	if p.Status.NominatedNodeName != "" {
		nominated = p.Status.NominatedNodeName
	}
	return []interface{}{
		fmt.Sprintf("%d/%d", ready, len(p.Spec.Containers)), reason, fmt.Sprint(restarts),
		resource.AgeOf(obj), ip, node, nominated, readinessGates(p),
	}
}
