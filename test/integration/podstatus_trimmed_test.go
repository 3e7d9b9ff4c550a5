package integration

import (
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/svcplane/svcplane/internal/informerutil"
)

// TestPodStatusWriteFromTrimmedCache: the controller manager's informers
// hold pods without volumes and container details
// (informerutil.ForControllers), and the node lifecycle controller writes
// a cached pod back through /status. The stored spec and the spec's
// managed fields stay as they were.
func TestPodStatusWriteFromTrimmedCache(t *testing.T) {
	skipShort(t)
	c := server.Client
	ns := newNamespace(t, c)
	created := get(c.CoreV1().Pods(ns).Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p"},
		Spec: corev1.PodSpec{NodeName: "n1",
			Volumes: []corev1.Volume{{Name: "scratch", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}},
			Containers: []corev1.Container{{Name: "c", Image: "nginx", Command: []string{"nginx"},
				Env: []corev1.EnvVar{{Name: "A", Value: "b"}}, VolumeMounts: []corev1.VolumeMount{{Name: "scratch", MountPath: "/s"}}}}}},
		metav1.CreateOptions{}))(t)
	obj, err := informerutil.ForControllers(created.DeepCopy())
	if err != nil {
		t.Fatal(err)
	}
	cached := obj.(*corev1.Pod)
	if cached.Spec.Volumes != nil || cached.Spec.Containers[0].Env != nil {
		t.Fatalf("the transform kept what it drops: %+v", cached.Spec)
	}
	cached.Status.Conditions = append(cached.Status.Conditions, corev1.PodCondition{Type: corev1.PodReady, Status: corev1.ConditionFalse, Reason: "NodeNotReady"})
	written := get(c.CoreV1().Pods(ns).UpdateStatus(ctx, cached, metav1.UpdateOptions{}))(t)
	stored := get(c.CoreV1().Pods(ns).Get(ctx, "p", metav1.GetOptions{}))(t)
	for _, p := range []*corev1.Pod{written, stored} {
		if !reflect.DeepEqual(p.Spec, created.Spec) {
			t.Errorf("spec after the status write:\n %+v\nwant\n %+v", p.Spec, created.Spec)
		}
	}
	specFields := func(p *corev1.Pod) string {
		for _, e := range p.ManagedFields {
			if e.Subresource == "" && e.Operation == metav1.ManagedFieldsOperationUpdate && e.FieldsV1 != nil {
				return string(e.FieldsV1.Raw)
			}
		}
		return ""
	}
	if before, after := specFields(created), specFields(stored); before == "" || before != after {
		t.Errorf("the creator's managed fields changed:\n %s\nto\n %s", before, after)
	}
	if !hasReadyFalse(stored) {
		t.Errorf("the status write did not land: %+v", stored.Status.Conditions)
	}
}

func hasReadyFalse(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady && c.Status == corev1.ConditionFalse {
			return true
		}
	}
	return false
}
