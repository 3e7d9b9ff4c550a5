package versionshare

import (
	"context"
	"reflect"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/apiserver/pkg/storage"

	"github.com/svcplane/svcplane/internal/objshare/objsharetest"
)

func podVersion(rv string, ready bool) *corev1.Pod { return objsharetest.Pod("p", rv, ready) }

func decoded(t *testing.T, pod *corev1.Pod) *corev1.Pod { return objsharetest.Decoded(t, pod) }

func sameData[T any](a, b []T) bool { return objsharetest.SameData(a, b) }

// fakeStore lists list and watches through w; the rest of
// storage.Interface is not called by these tests.
type fakeStore struct {
	storage.Interface
	list []corev1.Pod
	w    *watch.FakeWatcher
}

func (f *fakeStore) GetList(_ context.Context, _ string, _ storage.ListOptions, listObj runtime.Object) error {
	listObj.(*corev1.PodList).Items = f.list
	return nil
}

func (f *fakeStore) Watch(context.Context, string, storage.ListOptions) (watch.Interface, error) {
	return f.w, nil
}

func next(t *testing.T, w watch.Interface) watch.Event {
	t.Helper()
	select {
	case e, ok := <-w.ResultChan():
		if !ok {
			t.Fatal("watch closed")
		}
		return e
	case <-time.After(10 * time.Second):
		t.Fatal("no event")
	}
	return watch.Event{}
}

func TestWrapSharesWithTheVersionSeenBefore(t *testing.T) {
	ctx := context.Background()
	v1 := decoded(t, podVersion("1", false))
	fake := &fakeStore{list: []corev1.Pod{*v1}, w: watch.NewFakeWithChanSize(4, false)}
	s := Wrap(fake)

	var list corev1.PodList
	if err := s.GetList(ctx, "/pods", storage.ListOptions{}, &list); err != nil {
		t.Fatal(err)
	}
	listed := &list.Items[0]
	w, err := s.Watch(ctx, "/pods", storage.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()

	fake.w.Modify(decoded(t, podVersion("2", true)))
	v2 := next(t, w).Object.(*corev1.Pod)
	if !sameData(v2.Spec.Containers, listed.Spec.Containers) {
		t.Error("a modified pod does not share its unchanged spec with the listed version")
	}
	fake.w.Modify(decoded(t, podVersion("3", true)))
	v3 := next(t, w).Object.(*corev1.Pod)
	if !sameData(v3.Status.Conditions, v2.Status.Conditions) {
		t.Error("the third version does not share the conditions it has in common with the second")
	}
	if v3.ResourceVersion != "3" || v3.Status.Conditions[1].Status != corev1.ConditionTrue {
		t.Errorf("third version's values changed: %+v", v3)
	}

	fake.w.Delete(decoded(t, podVersion("4", true)))
	next(t, w)
	fake.w.Add(decoded(t, podVersion("5", true)))
	if v5 := next(t, w).Object.(*corev1.Pod); sameData(v5.Spec.Containers, v3.Spec.Containers) {
		t.Error("a pod created again after its deletion shares with the deleted one")
	}
}

// An object seen first shares with the last object of its group: listed
// or watched, and never with a deleted one.
func TestWrapSharesANewObjectWithItsSibling(t *testing.T) {
	ctx := context.Background()
	pod := func(name string) *corev1.Pod { return decoded(t, objsharetest.Pod(name, "1", true)) }
	fake := &fakeStore{list: []corev1.Pod{*pod("a"), *pod("b")}, w: watch.NewFakeWithChanSize(8, false)}
	s := Wrap(fake)
	var list corev1.PodList
	if err := s.GetList(ctx, "/pods", storage.ListOptions{}, &list); err != nil {
		t.Fatal(err)
	}
	a, b := &list.Items[0], &list.Items[1]
	if !objsharetest.SameString(b.Spec.Containers[0].Image, a.Spec.Containers[0].Image) {
		t.Error("the second listed pod does not share its image with the first")
	}
	w, err := s.Watch(ctx, "/pods", storage.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()

	want := pod("c")
	fake.w.Add(want.DeepCopy())
	c := next(t, w).Object.(*corev1.Pod)
	if !objsharetest.SameString(c.Spec.Containers[0].Image, b.Spec.Containers[0].Image) ||
		c.Spec.Volumes[0].Projected != b.Spec.Volumes[0].Projected {
		t.Error("an added pod does not share its image and projected volume with its sibling")
	}
	if c.Name != "c" || c.Spec.Volumes[0].Name != "kube-api-access-c" {
		t.Errorf("the added pod's own values changed: %s, %s", c.Name, c.Spec.Volumes[0].Name)
	}

	for _, name := range []string{"a", "b", "c"} {
		fake.w.Delete(pod(name))
		next(t, w)
	}
	fake.w.Add(pod("d"))
	if d := next(t, w).Object.(*corev1.Pod); d.Spec.Volumes[0].Projected == c.Spec.Volumes[0].Projected {
		t.Error("a pod added after its siblings' deletion shares with a deleted one")
	}
}

// A stopped watch closes, events still pending or not.
func TestWatchClosesAfterStop(t *testing.T) {
	fake := &fakeStore{w: watch.NewFakeWithChanSize(4, false)}
	w, err := Wrap(fake).Watch(context.Background(), "/pods", storage.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	fake.w.Add(decoded(t, podVersion("1", false)))
	fake.w.Add(decoded(t, podVersion("2", false)))
	w.Stop()
	deadline := time.After(10 * time.Second)
	for {
		select {
		case _, ok := <-w.ResultChan():
			if !ok {
				return
			}
		case <-deadline:
			t.Fatal("the watch did not close after Stop")
		}
	}
}

// The field set of a version whose fields did not change is the previous
// version's map.
func TestAttrsShareUnchangedFieldSets(t *testing.T) {
	ctx := context.Background()
	fake := &fakeStore{list: []corev1.Pod{*decoded(t, podVersion("1", false))}, w: watch.NewFakeWithChanSize(4, false)}
	s := newSharing(fake)
	attrs := s.attrs(func(obj runtime.Object) (labels.Set, fields.Set, error) {
		pod := obj.(*corev1.Pod)
		return labels.Set(pod.Labels), fields.Set{"metadata.name": pod.Name, "status.phase": string(pod.Status.Phase)}, nil
	})
	fieldsOf := func(obj runtime.Object) fields.Set {
		_, f, err := attrs(obj)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	same := func(a, b fields.Set) bool { return reflect.ValueOf(a).Pointer() == reflect.ValueOf(b).Pointer() }

	var list corev1.PodList
	if err := s.GetList(ctx, "/pods", storage.ListOptions{}, &list); err != nil {
		t.Fatal(err)
	}
	f1 := fieldsOf(&list.Items[0])
	w, err := s.Watch(ctx, "/pods", storage.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()

	fake.w.Modify(decoded(t, podVersion("2", true)))
	if f2 := fieldsOf(next(t, w).Object); !same(f2, f1) {
		t.Error("a version with the same fields got a field set of its own")
	}
	v3 := decoded(t, podVersion("3", true))
	v3.Status.Phase = corev1.PodSucceeded
	fake.w.Modify(v3)
	f3 := fieldsOf(next(t, w).Object)
	if same(f3, f1) || f3["status.phase"] != "Succeeded" {
		t.Errorf("a version with other fields got the previous set: %v", f3)
	}
	if f := fieldsOf(decoded(t, podVersion("3", true))); same(f, f3) || f["status.phase"] != "Running" {
		t.Errorf("an object the reflector does not hold got a held version's set: %v", f)
	}
	fake.w.Delete(decoded(t, podVersion("4", true)))
	deleted := next(t, w).Object
	fieldsOf(deleted)
	if len(s.last) != 0 {
		t.Errorf("the deleted pod is still remembered: %v", s.last)
	}
}
