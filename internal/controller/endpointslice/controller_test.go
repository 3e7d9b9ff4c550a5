package endpointslice

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
)

func newTest(objs ...runtime.Object) (*Controller, *fake.Clientset, informers.SharedInformerFactory) {
	client := fake.NewClientset(objs...)
	f := informers.NewSharedInformerFactory(client, 0)
	c := New(client, f.Core().V1().Services(), f.Core().V1().Pods(), f.Discovery().V1().EndpointSlices(), f.Core().V1().Nodes())
	for _, o := range objs {
		switch o := o.(type) {
		case *corev1.Service:
			_ = f.Core().V1().Services().Informer().GetStore().Add(o)
		case *corev1.Pod:
			_ = f.Core().V1().Pods().Informer().GetStore().Add(o)
		case *corev1.Node:
			_ = f.Core().V1().Nodes().Informer().GetStore().Add(o)
		}
	}
	return c, client, f
}

func TestSyncWritesSliceForMatchingReadyPods(t *testing.T) {
	ctx := context.Background()
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "web", UID: "svc-uid"},
		Spec: corev1.ServiceSpec{Selector: map[string]string{"app": "web"}, ClusterIP: "10.96.0.5",
			Ports: []corev1.ServicePort{{Name: "http", Port: 80, Protocol: corev1.ProtocolTCP}}}}
	pod := func(name, ip string, labels map[string]string) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: name, Labels: labels},
			Spec: corev1.PodSpec{NodeName: "n1"},
			Status: corev1.PodStatus{Phase: corev1.PodRunning, PodIP: ip, PodIPs: []corev1.PodIP{{IP: ip}},
				Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}}}
	}
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1", Labels: map[string]string{corev1.LabelTopologyZone: "z"}}}
	c, client, f := newTest(svc, node, pod("match", "10.1.0.1", map[string]string{"app": "web"}),
		pod("other", "10.1.0.2", map[string]string{"app": "db"}))
	if err := c.sync(ctx, "a/web"); err != nil {
		t.Fatal(err)
	}
	list, _ := client.DiscoveryV1().EndpointSlices("a").List(ctx, metav1.ListOptions{})
	if len(list.Items) != 1 {
		t.Fatalf("%d slices", len(list.Items))
	}
	s := list.Items[0]
	if len(s.Endpoints) != 1 || s.Endpoints[0].Addresses[0] != "10.1.0.1" || s.Labels[discoveryv1.LabelManagedBy] != ControllerName ||
		s.Labels[discoveryv1.LabelServiceName] != "web" || s.OwnerReferences[0].UID != "svc-uid" {
		t.Fatalf("slice: %+v", s)
	}
	// The Service goes: so do its slices.
	_ = f.Discovery().V1().EndpointSlices().Informer().GetStore().Add(&s)
	_ = f.Core().V1().Services().Informer().GetStore().Delete(svc)
	if err := c.sync(ctx, "a/web"); err != nil {
		t.Fatal(err)
	}
	if list, _ := client.DiscoveryV1().EndpointSlices("a").List(ctx, metav1.ListOptions{}); len(list.Items) != 0 {
		t.Fatalf("%d slices left after the Service went", len(list.Items))
	}
}

// TestSliceDeletedBySomeoneElseIsRecreated: a slice the controller keeps,
// deleted by a user (upstream's conformance spec "recreating EndpointSlices
// after they've been deleted"), resyncs its Service and comes back; the
// controller's own deletions do not requeue.
func TestSliceDeletedBySomeoneElseIsRecreated(t *testing.T) {
	ctx := context.Background()
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "web", UID: "svc-uid"},
		Spec: corev1.ServiceSpec{Selector: map[string]string{"app": "web"}, ClusterIP: "10.96.0.5",
			Ports: []corev1.ServicePort{{Name: "http", Port: 80, Protocol: corev1.ProtocolTCP}}}}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "p", Labels: map[string]string{"app": "web"}},
		Spec: corev1.PodSpec{NodeName: "n1"},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, PodIP: "10.1.0.1", PodIPs: []corev1.PodIP{{IP: "10.1.0.1"}},
			Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}}}
	c, client, _ := newTest(svc, pod, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1"}})
	if err := c.sync(ctx, "a/web"); err != nil {
		t.Fatal(err)
	}
	for c.queue.Len() > 0 { // drain what the sync's own writes queued
		k, _ := c.queue.Get()
		c.queue.Done(k)
		c.queue.Forget(k)
	}
	list, _ := client.DiscoveryV1().EndpointSlices("a").List(ctx, metav1.ListOptions{})
	if len(list.Items) != 1 {
		t.Fatalf("%d slices", len(list.Items))
	}
	s := list.Items[0]
	// A user deletes it: the informer reports the deletion.
	if err := client.DiscoveryV1().EndpointSlices("a").Delete(ctx, s.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	c.sliceDeleted(&s)
	if c.queue.Len() != 1 {
		t.Fatalf("an unexpected deletion queued %d keys, want the Service's", c.queue.Len())
	}
	if err := c.sync(ctx, "a/web"); err != nil {
		t.Fatal(err)
	}
	if list, _ := client.DiscoveryV1().EndpointSlices("a").List(ctx, metav1.ListOptions{}); len(list.Items) != 1 {
		t.Fatalf("%d slices after the resync, want the slice recreated", len(list.Items))
	}
}
