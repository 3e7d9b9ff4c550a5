package pod

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/svcplane/svcplane/internal/registry/resource"
)

// Definition returns the pods resource.
func Definition() *resource.Definition {
	return &resource.Definition{
		GroupVersion: corev1.SchemeGroupVersion, Kind: "Pod",
		Resource: "pods", Singular: "pod", Namespaced: true,
		ShortNames: []string{"po"}, Categories: []string{"all"},
		New:        func() runtime.Object { return &corev1.Pod{} },
		NewList:    func() runtime.Object { return &corev1.PodList{} },
		Default:    func(obj runtime.Object) { DefaultPod(obj.(*corev1.Pod)) },
		Generation: true,
		Status: &resource.StatusDefinition{
			ValidateUpdate: func(ctx context.Context, obj, old runtime.Object) field.ErrorList {
				return validateStatusUpdate(obj.(*corev1.Pod), old.(*corev1.Pod))
			},
		},
		PrepareForCreate: func(ctx context.Context, obj runtime.Object) {
			p := obj.(*corev1.Pod)
			p.Status = corev1.PodStatus{Phase: corev1.PodPending, QOSClass: ComputeQOS(&p.Spec)}
			applySchedulingGatedCondition(p)
			mergeMatchLabelKeys(p)
			copyAppArmorAnnotations(p)
		},
		Validate: func(ctx context.Context, obj runtime.Object) field.ErrorList {
			return validatePodCreate(obj.(*corev1.Pod))
		},
		ValidateUpdate:      validateUpdate,
		CheckGracefulDelete: checkGracefulDelete,
		FieldLabelNames: []string{"spec.nodeName", "spec.restartPolicy", "spec.schedulerName",
			"spec.serviceAccountName", "spec.hostNetwork", "status.phase", "status.podIP",
			"status.podIPs", "status.nominatedNodeName"},
		// Old v1 clients send spec.host (upstream's Pod conversion in
		// pkg/apis/core/v1/conversion.go).
		FieldLabelAliases: map[string]string{"spec.host": "spec.nodeName"},
		FieldLabels:       fieldLabels,
		// As upstream's pod storage: the watch cache indexes pods by node,
		// so that a node's watch reads and wakes for its pods only.
		IndexedField: "spec.nodeName",
		IndexedValue: func(obj runtime.Object) string { return obj.(*corev1.Pod).Spec.NodeName },
		Columns:      columns,
		Row:          row,
	}
}

func fieldLabels(obj runtime.Object) fields.Set {
	p := obj.(*corev1.Pod)
	podIP := ""
	if len(p.Status.PodIPs) > 0 {
		podIP = p.Status.PodIPs[0].IP
	}
	return fields.Set{
		"spec.nodeName":            p.Spec.NodeName,
		"spec.restartPolicy":       string(p.Spec.RestartPolicy),
		"spec.schedulerName":       p.Spec.SchedulerName,
		"spec.serviceAccountName":  p.Spec.ServiceAccountName,
		"spec.hostNetwork":         fmt.Sprint(p.Spec.HostNetwork),
		"status.phase":             string(p.Status.Phase),
		"status.podIP":             podIP,
		"status.nominatedNodeName": p.Status.NominatedNodeName,
	}
}

// SchedulingGatedMessage is the message of the PodScheduled condition of a
// pod created with scheduling gates.
const SchedulingGatedMessage = "Scheduling is blocked due to non-empty scheduling gates"

// applySchedulingGatedCondition gives a pod created with scheduling gates
// the condition PodScheduled=False SchedulingGated, as kube-apiserver's pod
// strategy does (the scheduler leaves such a pod alone until its gates are
// gone).
func applySchedulingGatedCondition(p *corev1.Pod) {
	if len(p.Spec.SchedulingGates) == 0 {
		return
	}
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodScheduled {
			return
		}
	}
	p.Status.Conditions = append(p.Status.Conditions, corev1.PodCondition{Type: corev1.PodScheduled,
		Status: corev1.ConditionFalse, Reason: corev1.PodReasonSchedulingGated, Message: SchedulingGatedMessage,
		LastTransitionTime: metav1.Now()})
}

// checkGracefulDelete gives pods their termination grace period, except
// pods that never ran on a node or have finished, which go at once.
func checkGracefulDelete(ctx context.Context, obj runtime.Object, options *metav1.DeleteOptions) bool {
	p := obj.(*corev1.Pod)
	var period int64
	switch {
	case options.GracePeriodSeconds != nil:
		period = *options.GracePeriodSeconds
	case p.Spec.TerminationGracePeriodSeconds != nil:
		period = *p.Spec.TerminationGracePeriodSeconds
	}
	if p.Spec.NodeName == "" || p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
		period = 0
	}
	if period < 0 {
		period = 1
	}
	options.GracePeriodSeconds = &period
	return true
}

// readinessGates prints "ready/total" of the pod's readiness gates.
func readinessGates(p *corev1.Pod) string {
	if len(p.Spec.ReadinessGates) == 0 {
		return "<none>"
	}
	ready := 0
	for _, g := range p.Spec.ReadinessGates {
		for _, c := range p.Status.Conditions {
			if c.Type == g.ConditionType && c.Status == corev1.ConditionTrue {
				ready++
			}
		}
	}
	return fmt.Sprintf("%d/%d", ready, len(p.Spec.ReadinessGates))
}
