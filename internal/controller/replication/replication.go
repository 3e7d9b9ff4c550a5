package replication

import (
	"context"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	coreinformers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/clock"

	"github.com/svcplane/svcplane/internal/controller/replicaset"
)

// New returns the ReplicationController controller.
func New(client kubernetes.Interface, rcs coreinformers.ReplicationControllerInformer, pods coreinformers.PodInformer, clk clock.Clock) *replicaset.Controller {
	return replicaset.NewFor(client, Kind(client, rcs), pods, clk)
}

// Kind presents ReplicationControllers to the ReplicaSet controller.
func Kind(client kubernetes.Interface, rcs coreinformers.ReplicationControllerInformer) replicaset.Kind {
	lister := rcs.Lister()
	return replicaset.Kind{
		GVK:      corev1.SchemeGroupVersion.WithKind("ReplicationController"),
		Informer: rcs.Informer(),
		Get: func(ns, name string) (*appsv1.ReplicaSet, error) {
			rc, err := lister.ReplicationControllers(ns).Get(name)
			if err != nil {
				return nil, err
			}
			return ToReplicaSet(rc), nil
		},
		List: func(ns string) ([]*appsv1.ReplicaSet, error) {
			all, err := lister.ReplicationControllers(ns).List(labels.Everything())
			out := make([]*appsv1.ReplicaSet, 0, len(all))
			for _, rc := range all {
				out = append(out, ToReplicaSet(rc))
			}
			return out, err
		},
		UpdateStatus: func(ctx context.Context, rs *appsv1.ReplicaSet) error {
			_, err := client.CoreV1().ReplicationControllers(rs.Namespace).UpdateStatus(ctx, FromReplicaSet(rs), metav1.UpdateOptions{})
			return err
		},
	}
}

// ToReplicaSet returns a ReplicaSet view of rc (a deep copy).
func ToReplicaSet(rc *corev1.ReplicationController) *appsv1.ReplicaSet {
	rs := &appsv1.ReplicaSet{
		ObjectMeta: *rc.ObjectMeta.DeepCopy(),
		Spec: appsv1.ReplicaSetSpec{
			MinReadySeconds: rc.Spec.MinReadySeconds,
			Selector:        &metav1.LabelSelector{MatchLabels: copyMap(rc.Spec.Selector)},
		},
		Status: appsv1.ReplicaSetStatus{
			Replicas: rc.Status.Replicas, FullyLabeledReplicas: rc.Status.FullyLabeledReplicas,
			ReadyReplicas: rc.Status.ReadyReplicas, AvailableReplicas: rc.Status.AvailableReplicas,
			ObservedGeneration: rc.Status.ObservedGeneration,
		},
	}
	if rc.Spec.Replicas != nil {
		n := *rc.Spec.Replicas
		rs.Spec.Replicas = &n
	}
	if rc.Spec.Template != nil {
		rs.Spec.Template = *rc.Spec.Template.DeepCopy()
	}
	for _, c := range rc.Status.Conditions {
		rs.Status.Conditions = append(rs.Status.Conditions, appsv1.ReplicaSetCondition{
			Type: appsv1.ReplicaSetConditionType(c.Type), Status: c.Status,
			LastTransitionTime: c.LastTransitionTime, Reason: c.Reason, Message: c.Message,
		})
	}
	return rs
}

// FromReplicaSet returns the ReplicationController rs views (a deep copy).
func FromReplicaSet(rs *appsv1.ReplicaSet) *corev1.ReplicationController {
	rc := &corev1.ReplicationController{
		ObjectMeta: *rs.ObjectMeta.DeepCopy(),
		Spec: corev1.ReplicationControllerSpec{
			MinReadySeconds: rs.Spec.MinReadySeconds,
			Template:        rs.Spec.Template.DeepCopy(),
		},
		Status: corev1.ReplicationControllerStatus{
			Replicas: rs.Status.Replicas, FullyLabeledReplicas: rs.Status.FullyLabeledReplicas,
			ReadyReplicas: rs.Status.ReadyReplicas, AvailableReplicas: rs.Status.AvailableReplicas,
			ObservedGeneration: rs.Status.ObservedGeneration,
		},
	}
	if rs.Spec.Replicas != nil {
		n := *rs.Spec.Replicas
		rc.Spec.Replicas = &n
	}
	if rs.Spec.Selector != nil {
		rc.Spec.Selector = copyMap(rs.Spec.Selector.MatchLabels)
	}
	for _, c := range rs.Status.Conditions {
		rc.Status.Conditions = append(rc.Status.Conditions, corev1.ReplicationControllerCondition{
			Type: corev1.ReplicationControllerConditionType(c.Type), Status: c.Status,
			LastTransitionTime: c.LastTransitionTime, Reason: c.Reason, Message: c.Message,
		})
	}
	return rc
}

func copyMap(m map[string]string) map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
