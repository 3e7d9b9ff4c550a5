package nodelifecycle

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The taints this controller owns.
var (
	unreachable = []corev1.Taint{{Key: corev1.TaintNodeUnreachable, Effect: corev1.TaintEffectNoSchedule},
		{Key: corev1.TaintNodeUnreachable, Effect: corev1.TaintEffectNoExecute}}
	notReady = []corev1.Taint{{Key: corev1.TaintNodeNotReady, Effect: corev1.TaintEffectNoSchedule},
		{Key: corev1.TaintNodeNotReady, Effect: corev1.TaintEffectNoExecute}}
)

func owned(t corev1.Taint) bool {
	return t.Key == corev1.TaintNodeUnreachable || t.Key == corev1.TaintNodeNotReady
}

// wantTaints returns current with the owned taints that Ready status
// calls for (Unknown: unreachable, False: not-ready, True: none), and
// whether that is a change. Taints that stay keep their timeAdded; new
// NoExecute taints get now.
func wantTaints(current []corev1.Taint, status corev1.ConditionStatus, now metav1.Time) ([]corev1.Taint, bool) {
	var want []corev1.Taint
	switch status {
	case corev1.ConditionUnknown:
		want = unreachable
	case corev1.ConditionFalse:
		want = notReady
	}
	var out []corev1.Taint
	changed := false
	for _, t := range current {
		if owned(t) && !contains(want, t) {
			changed = true
			continue
		}
		out = append(out, t)
	}
	for _, w := range want {
		if contains(current, w) {
			continue
		}
		if w.Effect == corev1.TaintEffectNoExecute {
			w.TimeAdded = now.DeepCopy()
		}
		out = append(out, w)
		changed = true
	}
	return out, changed
}

func contains(list []corev1.Taint, t corev1.Taint) bool {
	for _, x := range list {
		if x.Key == t.Key && x.Effect == t.Effect {
			return true
		}
	}
	return false
}

// markPodsNotReady sets the Ready condition of the node's pods to False,
// as upstream's MarkPodsNotReady does.
func (c *Controller) markPodsNotReady(ctx context.Context, node string) error {
	objs, err := c.pods.ByIndex(podNodeIndex, node)
	if err != nil {
		return err
	}
	now := metav1.NewTime(c.clock.Now())
	for _, obj := range objs {
		p := obj.(*corev1.Pod)
		if p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
			continue
		}
		for i, cond := range p.Status.Conditions {
			if cond.Type != corev1.PodReady || cond.Status == corev1.ConditionFalse {
				continue
			}
			p = p.DeepCopy()
			p.Status.Conditions[i].Status = corev1.ConditionFalse
			p.Status.Conditions[i].LastTransitionTime = now
			if _, err := c.client.CoreV1().Pods(p.Namespace).UpdateStatus(ctx, p, metav1.UpdateOptions{}); err != nil && !apierrors.IsNotFound(err) {
				return err
			}
			c.recorder.Event(p, corev1.EventTypeWarning, "NodeNotReady", "Node is not ready")
			break
		}
	}
	return nil
}
