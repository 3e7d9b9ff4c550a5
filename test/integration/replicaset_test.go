package integration

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

func int32p(i int32) *int32 { return &i }

// TestReplicaSetController: pods follow spec.replicas, an orphan matching
// the selector is adopted, a pod whose labels stop matching is released and
// replaced, and a pod owned by someone else is never taken.
func TestReplicaSetController(t *testing.T) {
	skipShort(t)
	c := server.Client
	ns := newNamespace(t, c)
	labels := map[string]string{"app": "rs"}
	podSpec := corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "x"}}}
	orphan := get(c.CoreV1().Pods(ns).Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "orphan", Labels: labels},
		Spec: podSpec}, metav1.CreateOptions{}))(t)
	// A pod that matches the selector but has another controller (a
	// ConfigMap that exists, so the garbage collector leaves the pod be).
	boss := get(c.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "boss"}}, metav1.CreateOptions{}))(t)
	yes := true
	foreign := get(c.CoreV1().Pods(ns).Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "foreign", Labels: labels,
		OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: boss.Name, UID: boss.UID, Controller: &yes}}},
		Spec: podSpec}, metav1.CreateOptions{}))(t)
	rs := get(c.AppsV1().ReplicaSets(ns).Create(ctx, &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Name: "rs"},
		Spec: appsv1.ReplicaSetSpec{Replicas: int32p(3), Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: podSpec}}}, metav1.CreateOptions{}))(t)
	owned := func() map[types.UID]string {
		out := map[types.UID]string{}
		for _, p := range get(c.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{}))(t).Items {
			if ref := metav1.GetControllerOf(&p); ref != nil && ref.UID == rs.UID && p.DeletionTimestamp == nil {
				out[p.UID] = p.Name
			}
		}
		return out
	}
	// stillForeign fails t unless the foreign pod is alive under its own
	// controller.
	stillForeign := func(when string) {
		t.Helper()
		p := get(c.CoreV1().Pods(ns).Get(ctx, "foreign", metav1.GetOptions{}))(t)
		if ref := metav1.GetControllerOf(p); ref == nil || ref.UID != boss.UID || p.UID != foreign.UID || p.DeletionTimestamp != nil {
			t.Fatalf("%s: the pod owned by a ConfigMap was taken or deleted: %+v", when, p.ObjectMeta)
		}
	}
	var first map[types.UID]string
	eventually(t, "3 owned pods, the orphan among them", func() bool {
		first = owned()
		_, adopted := first[orphan.UID]
		return len(first) == 3 && adopted
	})
	if _, taken := first[foreign.UID]; taken {
		t.Fatal("the ReplicaSet counts the pod owned by a ConfigMap as its own")
	}
	eventually(t, "status.replicas 3", func() bool {
		got := get(c.AppsV1().ReplicaSets(ns).Get(ctx, "rs", metav1.GetOptions{}))(t)
		return got.Status.Replicas == 3 && got.Status.FullyLabeledReplicas == 3 && got.Status.ObservedGeneration == got.Generation
	})
	stillForeign("at 3 replicas")
	// Relabel the adopted pod: released, and a new one takes its place.
	pods := c.CoreV1().Pods(ns)
	updateRetrying(t, func() (*corev1.Pod, error) { return pods.Get(ctx, "orphan", metav1.GetOptions{}) },
		func(p *corev1.Pod) { p.Labels = map[string]string{"app": "elsewhere"} },
		func(p *corev1.Pod) (*corev1.Pod, error) { return pods.Update(ctx, p, metav1.UpdateOptions{}) })
	var now map[types.UID]string
	eventually(t, "the relabelled pod released and replaced", func() bool {
		got := get(c.CoreV1().Pods(ns).Get(ctx, "orphan", metav1.GetOptions{}))(t)
		now = owned()
		return metav1.GetControllerOf(got) == nil && len(now) == 3
	})
	fresh := 0
	for uid := range now {
		if _, old := first[uid]; !old {
			fresh++
		}
	}
	if _, kept := now[orphan.UID]; kept || fresh != 1 {
		t.Fatalf("after the release: owned %v (before %v), want the two kept and one new pod", now, first)
	}
	// Scale down.
	rss := c.AppsV1().ReplicaSets(ns)
	updateRetrying(t, func() (*appsv1.ReplicaSet, error) { return rss.Get(ctx, "rs", metav1.GetOptions{}) },
		func(rs *appsv1.ReplicaSet) { rs.Spec.Replicas = int32p(1) },
		func(rs *appsv1.ReplicaSet) (*appsv1.ReplicaSet, error) {
			return rss.Update(ctx, rs, metav1.UpdateOptions{})
		})
	eventually(t, "one pod left", func() bool {
		left := owned()
		for uid := range left {
			if _, was := now[uid]; !was {
				t.Fatalf("scaling down owns a pod it did not own at 3 replicas: %v (was %v)", left, now)
			}
		}
		return len(left) == 1
	})
	stillForeign("after scaling down")
	if got := get(c.CoreV1().Pods(ns).Get(ctx, "orphan", metav1.GetOptions{}))(t); got.DeletionTimestamp != nil {
		t.Fatal("the released pod was deleted by the ReplicaSet it left")
	}
}
