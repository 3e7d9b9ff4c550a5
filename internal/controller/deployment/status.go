package deployment

import (
	"context"
	"fmt"
	"reflect"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// updateStatus writes the replica counts and the Available and Progressing
// conditions with upstream's reasons.
func (c *Controller) updateStatus(ctx context.Context, d *appsv1.Deployment, newRS *appsv1.ReplicaSet, old []*appsv1.ReplicaSet) error {
	st := appsv1.DeploymentStatus{ObservedGeneration: d.Generation, CollisionCount: d.Status.CollisionCount,
		Conditions: append([]appsv1.DeploymentCondition(nil), d.Status.Conditions...)}
	for _, rs := range append([]*appsv1.ReplicaSet{newRS}, old...) {
		if rs == nil {
			continue
		}
		st.Replicas += rs.Status.Replicas
		st.ReadyReplicas += rs.Status.ReadyReplicas
		st.AvailableReplicas += rs.Status.AvailableReplicas
	}
	if newRS != nil {
		st.UpdatedReplicas = newRS.Status.Replicas
	}
	want := replicas(d)
	st.UnavailableReplicas = max(want-st.AvailableReplicas, 0)
	_, unavail := surgeAndUnavailable(d)
	now := metav1.NewTime(c.clock.Now())
	if st.AvailableReplicas >= want-unavail {
		setCondition(&st, appsv1.DeploymentAvailable, corev1.ConditionTrue, "MinimumReplicasAvailable", "Deployment has minimum availability.", now)
	} else {
		setCondition(&st, appsv1.DeploymentAvailable, corev1.ConditionFalse, "MinimumReplicasUnavailable", "Deployment does not have minimum availability.", now)
	}
	c.progressing(d, newRS, &st, now)
	// The Deployment carries its current revision, as upstream's
	// SetDeploymentRevision (clients wait on it: kubectl, the e2e suite).
	revised := newRS != nil && setRevision(d, newRS.Annotations[RevisionAnnotation])
	if !revised && reflect.DeepEqual(d.Status, st) {
		return nil
	}
	d.Status = st
	_, err := c.client.AppsV1().Deployments(d.Namespace).UpdateStatus(ctx, d, metav1.UpdateOptions{})
	return err
}

// progressing sets the Progressing condition: complete once every replica
// is updated and available; ProgressDeadlineExceeded when no progress was
// made for progressDeadlineSeconds.
func (c *Controller) progressing(d *appsv1.Deployment, newRS *appsv1.ReplicaSet, st *appsv1.DeploymentStatus, now metav1.Time) {
	if newRS == nil {
		return
	}
	name := newRS.Name
	switch {
	case d.Spec.Paused:
		setCondition(st, appsv1.DeploymentProgressing, corev1.ConditionUnknown, "DeploymentPaused", "Deployment is paused", now)
	case st.UpdatedReplicas == replicas(d) && st.AvailableReplicas == replicas(d) && st.Replicas == replicas(d):
		setCondition(st, appsv1.DeploymentProgressing, corev1.ConditionTrue, "NewReplicaSetAvailable",
			fmt.Sprintf("ReplicaSet %q has successfully progressed.", name), now)
	default:
		cur := condition(st, appsv1.DeploymentProgressing)
		deadline := int32(600)
		if d.Spec.ProgressDeadlineSeconds != nil {
			deadline = *d.Spec.ProgressDeadlineSeconds
		}
		if cur != nil && cur.Reason != "NewReplicaSetAvailable" && cur.Status == corev1.ConditionTrue &&
			now.Sub(cur.LastUpdateTime.Time).Seconds() > float64(deadline) {
			setCondition(st, appsv1.DeploymentProgressing, corev1.ConditionFalse, "ProgressDeadlineExceeded",
				fmt.Sprintf("ReplicaSet %q has timed out progressing.", name), now)
			return
		}
		if cur == nil || cur.Reason != "ReplicaSetUpdated" || !reflect.DeepEqual(d.Status.UpdatedReplicas, st.UpdatedReplicas) ||
			d.Status.AvailableReplicas != st.AvailableReplicas {
			setCondition(st, appsv1.DeploymentProgressing, corev1.ConditionTrue, "ReplicaSetUpdated",
				fmt.Sprintf("ReplicaSet %q is progressing.", name), now)
		}
	}
}

func condition(st *appsv1.DeploymentStatus, t appsv1.DeploymentConditionType) *appsv1.DeploymentCondition {
	for i := range st.Conditions {
		if st.Conditions[i].Type == t {
			return &st.Conditions[i]
		}
	}
	return nil
}

// setCondition sets a condition; lastTransitionTime moves only when the
// status changes, lastUpdateTime whenever reason or message do.
func setCondition(st *appsv1.DeploymentStatus, t appsv1.DeploymentConditionType, s corev1.ConditionStatus, reason, msg string, now metav1.Time) {
	if cur := condition(st, t); cur != nil {
		if cur.Status == s && cur.Reason == reason && cur.Message == msg {
			return
		}
		if cur.Status != s {
			cur.LastTransitionTime = now
		}
		cur.Status, cur.Reason, cur.Message, cur.LastUpdateTime = s, reason, msg, now
		return
	}
	st.Conditions = append(st.Conditions, appsv1.DeploymentCondition{Type: t, Status: s, Reason: reason, Message: msg,
		LastUpdateTime: now, LastTransitionTime: now})
}

// setRevision sets d's revision annotation to rev; it reports a change.
func setRevision(d *appsv1.Deployment, rev string) bool {
	if rev == "" || d.Annotations[RevisionAnnotation] == rev {
		return false
	}
	if d.Annotations == nil {
		d.Annotations = map[string]string{}
	}
	d.Annotations[RevisionAnnotation] = rev
	return true
}
