package versionshare

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/apiserver/pkg/storage"
)

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
