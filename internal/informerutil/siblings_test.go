package informerutil

import (
	"reflect"
	"runtime"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/svcplane/svcplane/internal/objshare/objsharetest"
)

func TestShareSiblingsTransformsThenShares(t *testing.T) {
	transform := ShareSiblings(ForControllers)
	pod := func(name string) *corev1.Pod {
		out, err := transform(objsharetest.Decoded(t, objsharetest.Pod(name, "1", true)))
		if err != nil {
			t.Fatal(err)
		}
		return out.(*corev1.Pod)
	}
	a, b := pod("a"), pod("b")
	if b.ManagedFields != nil || b.Spec.Volumes != nil {
		t.Errorf("ForControllers was not applied: managedFields %v, volumes %v", b.ManagedFields, b.Spec.Volumes)
	}
	if !objsharetest.SameString(b.Spec.Containers[0].Image, a.Spec.Containers[0].Image) ||
		!objsharetest.SameData(b.Status.Conditions, a.Status.Conditions) {
		t.Error("a sibling pod does not share its image and conditions with the pod before it")
	}
	want := objsharetest.Pod("b", "1", true)
	if _, err := ForControllers(want); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(b, want) {
		t.Errorf("sharing changed the pod's values:\n got %+v\nwant %+v", b, want)
	}
	node := &corev1.Node{}
	if out, err := transform(node); err != nil || out != node {
		t.Errorf("a node came out as %v, %v", out, err)
	}
	runtime.KeepAlive(a)
}
