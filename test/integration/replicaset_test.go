package integration

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func int32p(i int32) *int32 { return &i }

// TestReplicaSetController: pods follow spec.replicas, an orphan matching
// the selector is adopted, a pod whose labels stop matching is released and
// replaced, and a pod owned by someone else is never taken.
func TestReplicaSetController(t *testing.T) {
	c := server.Client
	ns := newNamespace(t, c)
	labels := map[string]string{"app": "rs"}
	orphan := must(c.CoreV1().Pods(ns).Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "orphan", Labels: labels},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "x"}}}}, metav1.CreateOptions{}))
	rs := must(c.AppsV1().ReplicaSets(ns).Create(ctx, &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Name: "rs"},
		Spec: appsv1.ReplicaSetSpec{Replicas: int32p(3), Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "x"}}}}}}, metav1.CreateOptions{}))
	owned := func() []corev1.Pod {
		var out []corev1.Pod
		for _, p := range must(c.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})).Items {
			if ref := metav1.GetControllerOf(&p); ref != nil && ref.UID == rs.UID && p.DeletionTimestamp == nil {
				out = append(out, p)
			}
		}
		return out
	}
	eventually(t, "3 owned pods, the orphan among them", func() bool {
		pods := owned()
		adopted := false
		for _, p := range pods {
			adopted = adopted || p.UID == orphan.UID
		}
		return len(pods) == 3 && adopted
	})
	eventually(t, "status.replicas 3", func() bool {
		got := must(c.AppsV1().ReplicaSets(ns).Get(ctx, "rs", metav1.GetOptions{}))
		return got.Status.Replicas == 3 && got.Status.FullyLabeledReplicas == 3 && got.Status.ObservedGeneration == got.Generation
	})
	// Relabel the adopted pod: released, and a new one takes its place.
	pods := c.CoreV1().Pods(ns)
	updateRetrying(t, func() (*corev1.Pod, error) { return pods.Get(ctx, "orphan", metav1.GetOptions{}) },
		func(p *corev1.Pod) { p.Labels = map[string]string{"app": "elsewhere"} },
		func(p *corev1.Pod) (*corev1.Pod, error) { return pods.Update(ctx, p, metav1.UpdateOptions{}) })
	eventually(t, "the relabelled pod released and replaced", func() bool {
		got := must(c.CoreV1().Pods(ns).Get(ctx, "orphan", metav1.GetOptions{}))
		return metav1.GetControllerOf(got) == nil && len(owned()) == 3
	})
	// Scale down.
	rss := c.AppsV1().ReplicaSets(ns)
	updateRetrying(t, func() (*appsv1.ReplicaSet, error) { return rss.Get(ctx, "rs", metav1.GetOptions{}) },
		func(rs *appsv1.ReplicaSet) { rs.Spec.Replicas = int32p(1) },
		func(rs *appsv1.ReplicaSet) (*appsv1.ReplicaSet, error) {
			return rss.Update(ctx, rs, metav1.UpdateOptions{})
		})
	eventually(t, "one pod left", func() bool { return len(owned()) == 1 })
}
