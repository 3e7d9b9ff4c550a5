package replicaset

import (
	"context"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// updateStatus writes replicas, fullyLabeled, ready, available and
// observedGeneration (and the ReplicaFailure condition after a failed
// create or delete).
func (c *Controller) updateStatus(ctx context.Context, rs *appsv1.ReplicaSet, pods []*corev1.Pod, manageErr error) error {
	st := appsv1.ReplicaSetStatus{Replicas: int32(len(pods)), ObservedGeneration: rs.Generation}
	templateLabels := labels.Set(rs.Spec.Template.Labels).AsSelectorPreValidated()
	now := c.clock.Now()
	for _, p := range pods {
		if templateLabels.Matches(labels.Set(p.Labels)) {
			st.FullyLabeledReplicas++
		}
		if podReady(p) {
			st.ReadyReplicas++
			if availableSince(p, rs.Spec.MinReadySeconds, now) {
				st.AvailableReplicas++
			}
		}
	}
	st.Conditions = rs.Status.Conditions
	if manageErr != nil && !apierrors.IsConflict(manageErr) {
		st.Conditions = []appsv1.ReplicaSetCondition{{Type: appsv1.ReplicaSetReplicaFailure, Status: corev1.ConditionTrue,
			Reason: "FailedCreate", Message: manageErr.Error(), LastTransitionTime: metav1.NewTime(now)}}
	} else if manageErr == nil {
		st.Conditions = nil
	}
	if equalStatus(rs.Status, st) {
		c.resyncIfNotAvailable(rs, st)
		return nil
	}
	rs = rs.DeepCopy()
	rs.Status = st
	err := c.kind.UpdateStatus(ctx, rs)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err == nil {
		c.resyncIfNotAvailable(rs, st)
	}
	return err
}

// resyncIfNotAvailable looks at rs again MinReadySeconds later while some
// of its ready pods are not yet available: no event says when one
// becomes so. It does so whether or not this sync wrote the status
// (upstream resyncs after every sync, "a last line of defense against
// clock skew"): a resync that finds the pod not yet available (its Ready
// transition time is kept to the second) and the status therefore
// unchanged must still come back.
func (c *Controller) resyncIfNotAvailable(rs *appsv1.ReplicaSet, st appsv1.ReplicaSetStatus) {
	if rs.Spec.MinReadySeconds > 0 && st.ReadyReplicas != st.AvailableReplicas {
		c.queue.AddAfter(rs.Namespace+"/"+rs.Name, time.Duration(rs.Spec.MinReadySeconds)*time.Second)
	}
}

func availableSince(p *corev1.Pod, minReady int32, now time.Time) bool {
	if minReady == 0 {
		return true
	}
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady && c.Status == corev1.ConditionTrue {
			return !c.LastTransitionTime.IsZero() && c.LastTransitionTime.Add(time.Duration(minReady)*time.Second).Before(now)
		}
	}
	return false
}

func equalStatus(a, b appsv1.ReplicaSetStatus) bool {
	return a.Replicas == b.Replicas && a.FullyLabeledReplicas == b.FullyLabeledReplicas && a.ReadyReplicas == b.ReadyReplicas &&
		a.AvailableReplicas == b.AvailableReplicas && a.ObservedGeneration == b.ObservedGeneration &&
		len(a.Conditions) == len(b.Conditions)
}
