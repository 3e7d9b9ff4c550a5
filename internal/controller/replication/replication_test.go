package replication

import (
	"context"
	"fmt"
	"reflect"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/utils/clock"
)

func int32p(n int32) *int32 { return &n }

func TestConversionRoundTrip(t *testing.T) {
	now := metav1.NewTime(time.Unix(1000, 0))
	for name, rc := range map[string]*corev1.ReplicationController{
		"full": {
			ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "rc", UID: "u", ResourceVersion: "7", Generation: 3,
				Labels: map[string]string{"app": "a"}},
			Spec: corev1.ReplicationControllerSpec{Replicas: int32p(4), MinReadySeconds: 5,
				Selector: map[string]string{"app": "a"},
				Template: &corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "a"}},
					Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "i"}}}}},
			Status: corev1.ReplicationControllerStatus{Replicas: 4, FullyLabeledReplicas: 3, ReadyReplicas: 2,
				AvailableReplicas: 1, ObservedGeneration: 3,
				Conditions: []corev1.ReplicationControllerCondition{{Type: corev1.ReplicationControllerReplicaFailure,
					Status: corev1.ConditionTrue, LastTransitionTime: now, Reason: "FailedCreate", Message: "quota"}}},
		},
		"no template, no selector": {ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "rc"},
			Spec: corev1.ReplicationControllerSpec{Replicas: int32p(0), Template: &corev1.PodTemplateSpec{}}},
	} {
		t.Run(name, func(t *testing.T) {
			rs := ToReplicaSet(rc)
			if rs.Spec.Selector == nil || !reflect.DeepEqual(rs.Spec.Selector.MatchLabels, rc.Spec.Selector) {
				t.Fatalf("selector %+v", rs.Spec.Selector)
			}
			if back := FromReplicaSet(rs); !reflect.DeepEqual(back, rc) {
				t.Fatalf("round trip:\n got %+v\nwant %+v", back, rc)
			}
		})
	}
	rc := &corev1.ReplicationController{Spec: corev1.ReplicationControllerSpec{Selector: map[string]string{"a": "b"}}}
	ToReplicaSet(rc).Spec.Selector.MatchLabels["a"] = "changed"
	if rc.Spec.Selector["a"] != "b" {
		t.Fatal("the view must not share the cache's maps")
	}
}

// TestControllerOwnsPodsAsReplicationController runs the controller on a
// fake clientset and waits on its watch for the pods and the status.
func TestControllerOwnsPodsAsReplicationController(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	rc := &corev1.ReplicationController{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "web", UID: "rc-uid", Generation: 1},
		Spec: corev1.ReplicationControllerSpec{Replicas: int32p(2), Selector: map[string]string{"app": "web"},
			Template: &corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "i"}}}}}}
	client := fake.NewClientset(rc)
	// The fake tracker does not generate names.
	n := 0
	client.PrependReactor("create", "pods", func(a clienttesting.Action) (bool, runtime.Object, error) {
		p := a.(clienttesting.CreateAction).GetObject().(*corev1.Pod)
		if p.Name == "" {
			n++
			p.Name = fmt.Sprintf("%s%d", p.GenerateName, n)
		}
		return false, nil, nil
	})
	pods := must(client.CoreV1().Pods("ns").Watch(ctx, metav1.ListOptions{}))
	rcs := must(client.CoreV1().ReplicationControllers("ns").Watch(ctx, metav1.ListOptions{}))
	f := informers.NewSharedInformerFactory(client, 0)
	c := New(client, f.Core().V1().ReplicationControllers(), f.Core().V1().Pods(), clock.RealClock{})
	f.Start(ctx.Done())
	go c.Run(ctx, 1)
	timeout := time.After(30 * time.Second)
	for created := 0; created < 2; {
		select {
		case ev := <-pods.ResultChan():
			p := ev.Object.(*corev1.Pod)
			ref := metav1.GetControllerOf(p)
			if ev.Type != watch.Added || ref == nil || ref.Kind != "ReplicationController" || ref.APIVersion != "v1" ||
				ref.UID != "rc-uid" || p.Labels["app"] != "web" || p.GenerateName != "web-" {
				t.Fatalf("pod event %s: %+v", ev.Type, p.ObjectMeta)
			}
			created++
		case <-timeout:
			t.Fatal("no pods created")
		}
	}
	for {
		select {
		case ev := <-rcs.ResultChan():
			got := ev.Object.(*corev1.ReplicationController)
			if got.Status.Replicas == 2 && got.Status.ObservedGeneration == 1 {
				if !reflect.DeepEqual(got.Spec, rc.Spec) {
					t.Fatalf("status write changed the spec: %+v", got.Spec)
				}
				return
			}
		case <-timeout:
			t.Fatal("status never reached 2 replicas")
		}
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
