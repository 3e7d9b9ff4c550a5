// Package objsharetest holds the pods that objshare's and versionshare's
// tests share memory between.
package objsharetest

import (
	"testing"
	"unsafe"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// Pod is pod name of namespace ns at resourceVersion rv as the bench's
// agent leaves it; ready sets its Ready condition and containers'
// readiness (a status write). The pods of one namespace are siblings:
// they differ in their name, UID, service account volume name and
// resourceVersion.
func Pod(name, rv string, ready bool) *corev1.Pod {
	status := corev1.ConditionFalse
	if ready {
		status = corev1.ConditionTrue
	}
	token := "kube-api-access-" + name
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, UID: types.UID("uid-" + name), ResourceVersion: rv,
			Labels: map[string]string{"app": "web"},
			ManagedFields: []metav1.ManagedFieldsEntry{
				{Manager: "kubectl", Operation: metav1.ManagedFieldsOperationUpdate, FieldsType: "FieldsV1",
					FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:spec":{"f:containers":{}}}`)}},
				{Manager: "kubelet", Operation: metav1.ManagedFieldsOperationUpdate, FieldsType: "FieldsV1", Subresource: "status",
					FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:status":{"f:conditions":{}}}` + rv)}},
			}},
		Spec: corev1.PodSpec{NodeName: "node-1",
			Containers: []corev1.Container{{Name: "app", Image: "registry.k8s.io/pause:3.10",
				Resources:    corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m")}},
				VolumeMounts: []corev1.VolumeMount{{Name: token, MountPath: "/var/run/secrets/kubernetes.io/serviceaccount", ReadOnly: true}}}},
			Volumes: []corev1.Volume{{Name: token, VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{
				Sources: []corev1.VolumeProjection{{ConfigMap: &corev1.ConfigMapProjection{
					LocalObjectReference: corev1.LocalObjectReference{Name: "kube-root-ca.crt"}}}}}}}}},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, PodIP: "10.0.0.1",
			Conditions: []corev1.PodCondition{
				{Type: corev1.PodScheduled, Status: corev1.ConditionTrue},
				{Type: corev1.PodReady, Status: status}},
			ContainerStatuses: []corev1.ContainerStatus{{Name: "app", Ready: ready}}},
	}
}

// Decoded is pod through protobuf, as a store or an informer decodes it:
// memory of its own.
func Decoded(t testing.TB, pod *corev1.Pod) *corev1.Pod {
	t.Helper()
	b, err := pod.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	out := &corev1.Pod{}
	if err := out.Unmarshal(b); err != nil {
		t.Fatal(err)
	}
	return out
}

// SameData reports whether a and b are non-empty slices over the same
// array (shared memory).
func SameData[T any](a, b []T) bool {
	return len(a) > 0 && len(b) > 0 && unsafe.SliceData(a) == unsafe.SliceData(b)
}

// SameString reports whether a and b are the same bytes in memory.
func SameString(a, b string) bool { return unsafe.StringData(a) == unsafe.StringData(b) }
