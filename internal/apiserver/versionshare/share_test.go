package versionshare

import (
	"reflect"
	"testing"
	"unsafe"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// podVersion is a pod as the bench's agent leaves it; ready sets its
// Ready condition and containers' readiness (a status write).
func podVersion(rv string, ready bool) *corev1.Pod {
	status := corev1.ConditionFalse
	if ready {
		status = corev1.ConditionTrue
	}
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "p", ResourceVersion: rv, Labels: map[string]string{"app": "web"},
			ManagedFields: []metav1.ManagedFieldsEntry{
				{Manager: "kubectl", Operation: metav1.ManagedFieldsOperationUpdate, FieldsType: "FieldsV1",
					FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:spec":{"f:containers":{}}}`)}},
				{Manager: "kubelet", Operation: metav1.ManagedFieldsOperationUpdate, FieldsType: "FieldsV1", Subresource: "status",
					FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:status":{"f:conditions":{}}}` + rv)}},
			}},
		Spec: corev1.PodSpec{NodeName: "node-1",
			Containers: []corev1.Container{{Name: "app", Image: "registry.k8s.io/pause:3.10",
				Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m")}}}},
			Volumes: []corev1.Volume{{Name: "v", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}}},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, PodIP: "10.0.0.1",
			Conditions: []corev1.PodCondition{
				{Type: corev1.PodScheduled, Status: corev1.ConditionTrue},
				{Type: corev1.PodReady, Status: status}},
			ContainerStatuses: []corev1.ContainerStatus{{Name: "app", Ready: ready}}},
	}
}

// decoded is pod through protobuf, as the store decodes it: memory of
// its own.
func decoded(t *testing.T, pod *corev1.Pod) *corev1.Pod {
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

func sameData[T any](a, b []T) bool {
	return len(a) > 0 && len(b) > 0 && unsafe.SliceData(a) == unsafe.SliceData(b)
}

func sameString(a, b string) bool { return unsafe.StringData(a) == unsafe.StringData(b) }

func TestShareKeepsValuesAndSharesTheUnchanged(t *testing.T) {
	prev, cur := decoded(t, podVersion("1", false)), decoded(t, podVersion("2", true))
	wantPrev, wantCur := prev.DeepCopy(), cur.DeepCopy()

	Share(cur, prev)

	if !reflect.DeepEqual(cur, wantCur) {
		t.Errorf("Share changed the new version's values:\n got %+v\nwant %+v", cur, wantCur)
	}
	if !reflect.DeepEqual(prev, wantPrev) {
		t.Errorf("Share changed the old version")
	}
	for _, c := range []struct {
		what   string
		shared bool
		want   bool
	}{
		{"spec.containers", sameData(cur.Spec.Containers, prev.Spec.Containers), true},
		{"spec.volumes", sameData(cur.Spec.Volumes, prev.Spec.Volumes), true},
		{"spec.nodeName", sameString(cur.Spec.NodeName, prev.Spec.NodeName), true},
		{"metadata.labels", reflect.ValueOf(cur.Labels).Pointer() == reflect.ValueOf(prev.Labels).Pointer(), true},
		{"managedFields[0] (unchanged)", cur.ManagedFields[0].FieldsV1 == prev.ManagedFields[0].FieldsV1, true},
		{"managedFields[1] (changed)", cur.ManagedFields[1].FieldsV1 == prev.ManagedFields[1].FieldsV1, false},
		{"managedFields[1].manager", sameString(cur.ManagedFields[1].Manager, prev.ManagedFields[1].Manager), true},
		{"status.conditions (changed)", sameData(cur.Status.Conditions, prev.Status.Conditions), false},
		{"status.conditions[0].type", sameString(string(cur.Status.Conditions[0].Type), string(prev.Status.Conditions[0].Type)), true},
		{"status.containerStatuses (changed)", sameData(cur.Status.ContainerStatuses, prev.Status.ContainerStatuses), false},
		{"metadata.resourceVersion (changed)", sameString(cur.ResourceVersion, prev.ResourceVersion), false},
	} {
		if c.shared != c.want {
			t.Errorf("%s: shared %v, want %v", c.what, c.shared, c.want)
		}
	}
}

func TestShareCapsSharedSlices(t *testing.T) {
	prev := &metav1.ObjectMeta{Finalizers: make([]string, 1, 4)}
	prev.Finalizers[0] = "a"
	cur := &metav1.ObjectMeta{Finalizers: []string{"a"}}
	Share(cur, prev)
	if !sameData(cur.Finalizers, prev.Finalizers) || cap(cur.Finalizers) != 1 {
		t.Fatalf("finalizers not shared with their capacity capped: cap %d", cap(cur.Finalizers))
	}
	cur.Finalizers = append(cur.Finalizers, "b")
	if got := prev.Finalizers[:2][1]; got != "" {
		t.Errorf("an append to the new version wrote %q into the old one's array", got)
	}
}

func TestShareLeavesOthersAlone(t *testing.T) {
	pod := decoded(t, podVersion("1", false))
	want := pod.DeepCopy()
	node := &corev1.Node{}
	for _, c := range []struct {
		name      string
		cur, prev any
	}{
		{"different types", pod, node},
		{"nil old version", pod, (*corev1.Pod)(nil)},
		{"not pointers", *pod, *want},
		{"itself", pod, pod},
	} {
		t.Run(c.name, func(t *testing.T) {
			Share(c.cur, c.prev)
			if !reflect.DeepEqual(pod, want) {
				t.Errorf("pod changed")
			}
		})
	}
}

// A map that differs is not merged: it is kept whole.
func TestShareMapsWholeOrNot(t *testing.T) {
	prev := &metav1.ObjectMeta{Labels: map[string]string{"a": "1", "b": "2"}}
	cur := &metav1.ObjectMeta{Labels: map[string]string{"a": "1", "b": "3"}}
	Share(cur, prev)
	if reflect.ValueOf(cur.Labels).Pointer() == reflect.ValueOf(prev.Labels).Pointer() || cur.Labels["b"] != "3" {
		t.Errorf("unequal labels shared: %v", cur.Labels)
	}
}
