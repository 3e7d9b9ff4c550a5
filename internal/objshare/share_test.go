package objshare

import (
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/svcplane/svcplane/internal/objshare/objsharetest"
)

func podVersion(rv string, ready bool) *corev1.Pod { return objsharetest.Pod("p", rv, ready) }

func decoded(t *testing.T, pod *corev1.Pod) *corev1.Pod { return objsharetest.Decoded(t, pod) }

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
		{"spec.containers", objsharetest.SameData(cur.Spec.Containers, prev.Spec.Containers), true},
		{"spec.volumes", objsharetest.SameData(cur.Spec.Volumes, prev.Spec.Volumes), true},
		{"spec.nodeName", objsharetest.SameString(cur.Spec.NodeName, prev.Spec.NodeName), true},
		{"metadata.labels", reflect.ValueOf(cur.Labels).Pointer() == reflect.ValueOf(prev.Labels).Pointer(), true},
		{"managedFields[0] (unchanged)", cur.ManagedFields[0].FieldsV1 == prev.ManagedFields[0].FieldsV1, true},
		{"managedFields[1] (changed)", cur.ManagedFields[1].FieldsV1 == prev.ManagedFields[1].FieldsV1, false},
		{"managedFields[1].manager", objsharetest.SameString(cur.ManagedFields[1].Manager, prev.ManagedFields[1].Manager), true},
		{"status.conditions (changed)", objsharetest.SameData(cur.Status.Conditions, prev.Status.Conditions), false},
		{"status.conditions[0].type", objsharetest.SameString(string(cur.Status.Conditions[0].Type), string(prev.Status.Conditions[0].Type)), true},
		{"status.containerStatuses (changed)", objsharetest.SameData(cur.Status.ContainerStatuses, prev.Status.ContainerStatuses), false},
		{"metadata.resourceVersion (changed)", objsharetest.SameString(cur.ResourceVersion, prev.ResourceVersion), false},
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
	if !objsharetest.SameData(cur.Finalizers, prev.Finalizers) || cap(cur.Finalizers) != 1 {
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

// Slices of other lengths share the elements both have; an unequal slice
// with spare capacity gets an array of its length.
func TestShareSlicesOfOtherLengths(t *testing.T) {
	prev := decoded(t, podVersion("1", false))
	curPod := podVersion("2", true)
	curPod.Status.Conditions = append(curPod.Status.Conditions, corev1.PodCondition{Type: corev1.ContainersReady, Status: corev1.ConditionTrue})
	cur := decoded(t, curPod)
	if cap(cur.Status.Conditions) == len(cur.Status.Conditions) {
		t.Fatalf("the decoded conditions have no spare capacity (cap %d): the test needs some", cap(cur.Status.Conditions))
	}
	want := cur.DeepCopy()

	Share(cur, prev)

	if !reflect.DeepEqual(cur, want) {
		t.Errorf("Share changed the new version's values:\n got %+v\nwant %+v", cur, want)
	}
	if c := cur.Status.Conditions; cap(c) != len(c) {
		t.Errorf("conditions kept their spare capacity: len %d cap %d", len(c), cap(c))
	}
	if !objsharetest.SameString(string(cur.Status.Conditions[1].Type), string(prev.Status.Conditions[1].Type)) {
		t.Error("the condition both versions have does not share its type")
	}
}

// share's walk reports equality as reflect.DeepEqual does.
func TestShareReportsEqualityAsDeepEqual(t *testing.T) {
	base := func() *corev1.Pod { return podVersion("1", true) }
	with := func(change func(*corev1.Pod)) *corev1.Pod { p := base(); change(p); return p }
	for name, prev := range map[string]*corev1.Pod{
		"equal":             base(),
		"other version":     podVersion("2", true),
		"sibling":           objsharetest.Pod("q", "1", true),
		"labels empty":      with(func(p *corev1.Pod) { p.Labels = map[string]string{} }),
		"labels nil":        with(func(p *corev1.Pod) { p.Labels = nil }),
		"label value":       with(func(p *corev1.Pod) { p.Labels["app"] = "db" }),
		"finalizers empty":  with(func(p *corev1.Pod) { p.Finalizers = []string{} }),
		"annotations empty": with(func(p *corev1.Pod) { p.Annotations = map[string]string{} }),
		"quantity": with(func(p *corev1.Pod) {
			p.Spec.Containers[0].Resources.Requests[corev1.ResourceCPU] = resource.MustParse("0.1")
		}),
		"condition time":      with(func(p *corev1.Pod) { p.Status.Conditions[0].LastTransitionTime = metav1.Unix(1, 0) }),
		"deletion time":       with(func(p *corev1.Pod) { p.DeletionTimestamp = &metav1.Time{} }),
		"grace period":        with(func(p *corev1.Pod) { p.Spec.TerminationGracePeriodSeconds = new(int64(30)) }),
		"one more condition":  with(func(p *corev1.Pod) { p.Status.Conditions = append(p.Status.Conditions, corev1.PodCondition{Type: "X"}) }),
		"one fewer container": with(func(p *corev1.Pod) { p.Spec.Containers = nil }),
		"managed fields raw":  with(func(p *corev1.Pod) { p.ManagedFields[0].FieldsV1.Raw = []byte(`{}`) }),
	} {
		t.Run(name, func(t *testing.T) {
			// DeepCopy rather than protobuf, which keeps no empty map or slice.
			cur, prev := base().DeepCopy(), prev.DeepCopy()
			want := cur.DeepCopy()
			wantEqual := reflect.DeepEqual(cur, prev)
			if got := share(reflect.ValueOf(cur).Elem(), reflect.ValueOf(prev).Elem()); got != wantEqual {
				t.Errorf("share reported equal %v, reflect.DeepEqual %v", got, wantEqual)
			}
			if !reflect.DeepEqual(cur, want) {
				t.Errorf("values changed:\n got %+v\nwant %+v", cur, want)
			}
		})
	}
}

// The cost of sharing a new version of a pod with the previous one.
func BenchmarkShareVersion(b *testing.B) {
	prev := objsharetest.Decoded(b, podVersion("1", false))
	raw, err := podVersion("2", true).Marshal()
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		cur := &corev1.Pod{}
		if err := cur.Unmarshal(raw); err != nil {
			b.Fatal(err)
		}
		Share(cur, prev)
	}
}
