package namespace

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	fakediscovery "k8s.io/client-go/discovery/fake"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/kubernetes/scheme"
	clienttesting "k8s.io/client-go/testing"
	testingclock "k8s.io/utils/clock/testing"
)

// stubDiscovery answers ServerPreferredNamespacedResources with fixed lists.
type stubDiscovery struct {
	*fakediscovery.FakeDiscovery
	lists []*metav1.APIResourceList
	err   error
}

func (s stubDiscovery) ServerPreferredNamespacedResources() ([]*metav1.APIResourceList, error) {
	return s.lists, s.err
}

var deletable = metav1.Verbs{"list", "delete"}

func resources() []*metav1.APIResourceList {
	return []*metav1.APIResourceList{
		{GroupVersion: "v1", APIResources: []metav1.APIResource{
			{Name: "configmaps", Namespaced: true, Verbs: deletable},
			{Name: "pods", Namespaced: true, Verbs: deletable},
		}},
		{GroupVersion: "apps/v1", APIResources: []metav1.APIResource{{Name: "deployments", Namespaced: true, Verbs: deletable}}},
	}
}

type fixture struct {
	client *fake.Clientset
	dyn    *dynamicfake.FakeDynamicClient
	c      *Controller
}

func newFixture(t *testing.T, disco stubDiscovery, content ...runtime.Object) *fixture {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team", DeletionTimestamp: &metav1.Time{Time: time.Unix(50, 0)}},
		Spec: corev1.NamespaceSpec{Finalizers: []corev1.FinalizerName{corev1.FinalizerKubernetes}}}
	client := fake.NewClientset(ns)
	disco.FakeDiscovery = client.Discovery().(*fakediscovery.FakeDiscovery)
	dyn := dynamicfake.NewSimpleDynamicClient(scheme.Scheme, content...)
	inf := informers.NewSharedInformerFactory(client, 0)
	c := New(client, dyn, disco, inf.Core().V1().Namespaces())
	c.clock = testingclock.NewFakeClock(time.Unix(100, 0))
	_ = inf.Core().V1().Namespaces().Informer().GetIndexer().Add(ns)
	return &fixture{client: client, dyn: dyn, c: c}
}

// statusConditions returns the conditions of the last status write.
func (f *fixture) statusConditions(t *testing.T) map[corev1.NamespaceConditionType]corev1.NamespaceCondition {
	t.Helper()
	out := map[corev1.NamespaceConditionType]corev1.NamespaceCondition{}
	for _, a := range f.client.Actions() {
		if u, ok := a.(clienttesting.UpdateAction); ok && a.GetSubresource() == "status" {
			for _, c := range u.GetObject().(*corev1.Namespace).Status.Conditions {
				out[c.Type] = c
			}
		}
	}
	if len(out) != len(conditionTypes) {
		t.Fatalf("status conditions %v, want all %d types", out, len(conditionTypes))
	}
	return out
}

func (f *fixture) finalized() bool {
	for _, a := range f.client.Actions() {
		if a.GetSubresource() == "finalize" {
			return true
		}
	}
	return false
}

func pod(name string, finalizers ...string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "team", Finalizers: finalizers}}
}

func TestEmptiesAndFinalizes(t *testing.T) {
	f := newFixture(t, stubDiscovery{lists: resources()}, pod("p"),
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cm", Namespace: "team"}})
	left, err := f.c.sync(context.Background(), "team")
	if err != nil || left != 0 {
		t.Fatalf("sync: %d left, %v", left, err)
	}
	if !f.finalized() {
		t.Fatal("an empty namespace must be finalized")
	}
	for ty, c := range f.statusConditions(t) {
		if c.Status != corev1.ConditionFalse || c.Reason != okConditions[ty][0] {
			t.Errorf("%s: %+v, want the ok variant", ty, c)
		}
	}
}

// TestPodsGoFirst: while a pod is still terminating nothing else is
// deleted, and the conditions say what remains and which finalizer holds it.
func TestPodsGoFirst(t *testing.T) {
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cm", Namespace: "team"}}
	f := newFixture(t, stubDiscovery{lists: resources()}, pod("held", "example.com/keep"), cm)
	// Deleting a pod with a finalizer only marks it, as the server does.
	f.dyn.PrependReactor("delete", "pods", func(clienttesting.Action) (bool, runtime.Object, error) { return true, nil, nil })
	left, err := f.c.sync(context.Background(), "team")
	if err != nil || left != 1 {
		t.Fatalf("sync: %d left, %v; want 1 pod left", left, err)
	}
	for _, a := range f.dyn.Actions() {
		if a.GetVerb() == "delete" && a.GetResource().Resource != "pods" {
			t.Fatalf("deleted %s before the pods were gone", a.GetResource().Resource)
		}
	}
	if f.finalized() {
		t.Fatal("finalized with a pod left")
	}
	conds := f.statusConditions(t)
	if c := conds[corev1.NamespaceContentRemaining]; c.Status != corev1.ConditionTrue || c.Reason != "SomeResourcesRemain" ||
		c.Message != "Some resources are remaining: pods. has 1 resource instances" {
		t.Errorf("ContentRemaining: %+v", c)
	}
	if c := conds[corev1.NamespaceFinalizersRemaining]; c.Status != corev1.ConditionTrue || c.Reason != "SomeFinalizerRemain" ||
		c.Message != "Some finalizers are remaining: example.com/keep in 1 resource instances" {
		t.Errorf("FinalizersRemaining: %+v", c)
	}
}

func TestDiscoveryFailureIsReportedAndBlocksFinalization(t *testing.T) {
	derr := &discovery.ErrGroupDiscoveryFailed{Groups: map[schema.GroupVersion]error{{Group: "metrics.k8s.io", Version: "v1beta1"}: errors.New("unavailable")}}
	f := newFixture(t, stubDiscovery{lists: resources(), err: derr}, pod("p"))
	_, err := f.c.sync(context.Background(), "team")
	if err == nil || f.finalized() {
		t.Fatalf("a partial discovery must not finalize: err %v", err)
	}
	c := f.statusConditions(t)[corev1.NamespaceDeletionDiscoveryFailure]
	if c.Status != corev1.ConditionTrue || c.Reason != "DiscoveryFailed" ||
		!strings.HasPrefix(c.Message, "Discovery failed for some groups, 1 failing: ") {
		t.Errorf("DiscoveryFailure: %+v", c)
	}
	// What could be discovered is still deleted.
	if _, gerr := f.dyn.Resource(podsResource).Namespace("team").Get(context.Background(), "p", metav1.GetOptions{}); gerr == nil {
		t.Error("the pod must still be deleted")
	}
}

func TestConditionTransitionTimeMovesOnlyOnFlip(t *testing.T) {
	var st corev1.NamespaceStatus
	t0, t1 := metav1.NewTime(time.Unix(1, 0)), metav1.NewTime(time.Unix(2, 0))
	found := []corev1.NamespaceCondition{{Type: corev1.NamespaceContentRemaining, Status: corev1.ConditionTrue, Reason: "SomeResourcesRemain", Message: "a"}}
	if !applyConditions(&st, found, t0) {
		t.Fatal("first write must change")
	}
	found[0].Message = "b"
	if !applyConditions(&st, found, t1) || find(st.Conditions, corev1.NamespaceContentRemaining).LastTransitionTime != t0 {
		t.Fatal("a message change keeps the transition time")
	}
	if applyConditions(&st, found, t1) {
		t.Fatal("no change the second time")
	}
	if !applyConditions(&st, nil, t1) || find(st.Conditions, corev1.NamespaceContentRemaining).LastTransitionTime != t1 {
		t.Fatal("a flip to False moves the transition time")
	}
}
