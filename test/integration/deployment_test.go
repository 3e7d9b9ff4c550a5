package integration

import (
	"fmt"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/util/retry"
)

// markPodsReady plays the node agent for ns: every pod becomes Running and
// Ready with an IP (the node-agent issue brings the real thing).
func markPodsReady(c kubernetes.Interface, ns string) {
	pods, err := c.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return
	}
	for i, p := range pods.Items {
		if p.DeletionTimestamp != nil || p.Status.Phase == corev1.PodRunning {
			continue
		}
		// The scheduler writes these unbound pods' PodScheduled condition
		// (no node here fits them) meanwhile: re-read on a conflict.
		_ = retry.RetryOnConflict(retry.DefaultRetry, func() error {
			cur, err := c.CoreV1().Pods(ns).Get(ctx, p.Name, metav1.GetOptions{})
			if err != nil || cur.UID != p.UID {
				return err
			}
			cur.Status.Phase = corev1.PodRunning
			cur.Status.PodIP = fmt.Sprintf("10.250.%d.%d", i/250, i%250+1)
			cur.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: metav1.Now()}}
			_, err = c.CoreV1().Pods(ns).UpdateStatus(ctx, cur, metav1.UpdateOptions{})
			return err
		})
	}
}

// TestDeploymentRollout: a Deployment gets a ReplicaSet named by its
// pod-template-hash and becomes Available; a new image rolls to a second
// ReplicaSet (revision 2) and the first is scaled to 0.
func TestDeploymentRollout(t *testing.T) {
	skipShort(t)
	c := server.Client
	ns := newNamespace(t, c)
	labels := map[string]string{"app": "web"}
	d := get(c.AppsV1().Deployments(ns).Create(ctx, &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "web"},
		Spec: appsv1.DeploymentSpec{Replicas: int32p(3), Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx:1"}}}}}}, metav1.CreateOptions{}))(t)
	complete := func() bool {
		markPodsReady(c, ns)
		cur := get(c.AppsV1().Deployments(ns).Get(ctx, "web", metav1.GetOptions{}))(t)
		return cur.Status.ObservedGeneration == cur.Generation && cur.Status.UpdatedReplicas == 3 &&
			cur.Status.AvailableReplicas == 3 && cur.Status.Replicas == 3
	}
	eventually(t, "the first rollout", complete)
	sets := get(c.AppsV1().ReplicaSets(ns).List(ctx, metav1.ListOptions{}))(t).Items
	if len(sets) != 1 || sets[0].Annotations["deployment.kubernetes.io/revision"] != "1" ||
		sets[0].Name != "web-"+sets[0].Labels["pod-template-hash"] || metav1.GetControllerOf(&sets[0]).UID != d.UID {
		t.Fatalf("first ReplicaSet: %+v", sets)
	}
	ds := c.AppsV1().Deployments(ns)
	updateRetrying(t, func() (*appsv1.Deployment, error) { return ds.Get(ctx, "web", metav1.GetOptions{}) },
		func(d *appsv1.Deployment) { d.Spec.Template.Spec.Containers[0].Image = "nginx:2" },
		func(d *appsv1.Deployment) (*appsv1.Deployment, error) {
			return ds.Update(ctx, d, metav1.UpdateOptions{})
		})
	eventually(t, "the second rollout", func() bool {
		if !complete() {
			return false
		}
		for _, rs := range get(c.AppsV1().ReplicaSets(ns).List(ctx, metav1.ListOptions{}))(t).Items {
			want := int32(0)
			if rs.Spec.Template.Spec.Containers[0].Image == "nginx:2" {
				want = 3
			}
			if *rs.Spec.Replicas != want || rs.Status.Replicas != want {
				return false
			}
		}
		return true
	})
	for _, rs := range get(c.AppsV1().ReplicaSets(ns).List(ctx, metav1.ListOptions{}))(t).Items {
		if rs.Spec.Template.Spec.Containers[0].Image == "nginx:2" && rs.Annotations["deployment.kubernetes.io/revision"] != "2" {
			t.Fatalf("new ReplicaSet revision %q", rs.Annotations["deployment.kubernetes.io/revision"])
		}
	}
}
