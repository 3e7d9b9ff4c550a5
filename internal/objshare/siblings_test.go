package objshare

import (
	"reflect"
	"runtime"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/svcplane/svcplane/internal/objshare/objsharetest"
)

func sibling(t *testing.T, name, namespace string, controller types.UID) *corev1.Pod {
	pod := objsharetest.Pod(name, "1", true)
	pod.Namespace = namespace
	if controller != "" {
		pod.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "rs-" + string(controller),
			UID: controller, Controller: new(true)}}
	}
	return objsharetest.Decoded(t, pod)
}

func TestSiblingsShareWithTheLastOfTheirGroup(t *testing.T) {
	s := NewSiblings[corev1.Pod]()
	share := func(p *corev1.Pod) *corev1.Pod { s.Share(p, GroupOf(p)); return p }

	a := share(sibling(t, "a", "ns", "rs1"))
	b := sibling(t, "b", "ns", "rs1")
	want := b.DeepCopy()
	share(b)
	if !reflect.DeepEqual(b, want) {
		t.Fatalf("Share changed the sibling's values:\n got %+v\nwant %+v", b, want)
	}
	for _, c := range []struct {
		what         string
		shared, want bool
	}{
		{"spec.containers[0].image", objsharetest.SameString(b.Spec.Containers[0].Image, a.Spec.Containers[0].Image), true},
		{"spec.volumes[0].projected", b.Spec.Volumes[0].Projected == a.Spec.Volumes[0].Projected, true},
		{"spec.volumes[0].name (differs)", objsharetest.SameString(b.Spec.Volumes[0].Name, a.Spec.Volumes[0].Name), false},
		{"metadata.ownerReferences", objsharetest.SameData(b.OwnerReferences, a.OwnerReferences), true},
		{"metadata.labels", reflect.ValueOf(b.Labels).Pointer() == reflect.ValueOf(a.Labels).Pointer(), true},
		{"metadata.name (differs)", objsharetest.SameString(b.Name, a.Name), false},
	} {
		if c.shared != c.want {
			t.Errorf("%s: shared %v, want %v", c.what, c.shared, c.want)
		}
	}

	// Another controller's pod, or another namespace's, is no sibling of b.
	for _, other := range []*corev1.Pod{sibling(t, "c", "ns", "rs2"), sibling(t, "d", "other", "rs1"), sibling(t, "e", "ns", "")} {
		share(other)
		if objsharetest.SameString(other.Spec.Containers[0].Image, b.Spec.Containers[0].Image) {
			t.Errorf("%s/%s (controller %v) shared with b", other.Namespace, other.Name, GroupOf(other).Controller)
		}
	}
	runtime.KeepAlive(a)
}

func TestGroupOf(t *testing.T) {
	pod := sibling(t, "a", "ns", "rs1")
	pod.OwnerReferences = append([]metav1.OwnerReference{{Kind: "Node", UID: "not-the-controller"}}, pod.OwnerReferences...)
	if got, want := GroupOf(pod), (Group{Namespace: "ns", Controller: "rs1"}); got != want {
		t.Errorf("GroupOf = %+v, want %+v", got, want)
	}
	if got, want := GroupOf(sibling(t, "b", "ns", "")), (Group{Namespace: "ns"}); got != want {
		t.Errorf("GroupOf (no controller) = %+v, want %+v", got, want)
	}
}

// Siblings keeps no object alive: a group is forgotten once its last
// object is freed, and kept while a newer one lives.
func TestSiblingsForgetFreedObjects(t *testing.T) {
	s := NewSiblings[corev1.Pod]()
	func() {
		for _, ns := range []string{"a", "b", "c"} {
			p := sibling(t, "p", ns, "")
			s.Share(p, GroupOf(p))
		}
	}()
	kept := sibling(t, "q", "a", "")
	s.Share(kept, GroupOf(kept))
	if got := s.Groups(); got != 3 {
		t.Fatalf("%d groups remembered, want 3", got)
	}
	// Cleanups run on their own goroutine after a collection.
	for i := 0; i < 1000 && s.Groups() > 1; i++ {
		runtime.GC()
		runtime.Gosched()
	}
	if got := s.Groups(); got != 1 {
		t.Errorf("%d groups remembered once their objects were freed, want 1 (group a, whose last object lives)", got)
	}
	if got := s.last[Group{Namespace: "a"}].Value(); got != kept {
		t.Errorf("group a's last is %v, want the live pod", got)
	}
	runtime.KeepAlive(kept)
}
