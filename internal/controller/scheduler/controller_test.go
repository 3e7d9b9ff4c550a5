package scheduler

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/record"
	testingclock "k8s.io/utils/clock/testing"
)

type fixture struct {
	s       *Scheduler
	inf     informers.SharedInformerFactory
	pending chan *corev1.Binding // binds held back until the test releases them
	results chan error
}

// newFixture is a scheduler on a fake clientset whose binds block until
// the test answers them, so placements happen with binds in flight.
func newFixture(t *testing.T, nodes ...*corev1.Node) *fixture {
	client := fake.NewClientset()
	inf := informers.NewSharedInformerFactory(client, 0)
	s := New(client, inf.Core().V1().Pods(), inf.Core().V1().Nodes())
	f := &fixture{s: s, inf: inf, pending: make(chan *corev1.Binding, 100), results: make(chan error)}
	s.bind = func(_ context.Context, b *corev1.Binding) error {
		f.pending <- b
		return <-f.results
	}
	for _, n := range nodes { // as the node informer delivers them
		_ = inf.Core().V1().Nodes().Informer().GetIndexer().Add(n)
		s.nodeChanged(n)
	}
	return f
}

func (f *fixture) addPod(t *testing.T, name string) string {
	t.Helper()
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns", UID: "uid-" + types.UID(name)}}
	_ = f.inf.Core().V1().Pods().Informer().GetIndexer().Add(p)
	return "ns/" + name
}

func (f *fixture) schedule(t *testing.T, key string) bool {
	t.Helper()
	retry, err := f.s.schedule(context.Background(), key)
	if err != nil {
		t.Fatal(err)
	}
	return retry
}

// TestPlacementsCountInFlightBinds: six pods placed while none of their
// binds has answered spread 2-2-2 over three nodes.
func TestPlacementsCountInFlightBinds(t *testing.T) {
	f := newFixture(t, readyNode("a", nil), readyNode("b", nil), readyNode("c", nil))
	perNode := map[string]int{}
	for i := 0; i < 6; i++ {
		f.schedule(t, f.addPod(t, fmt.Sprintf("p%d", i)))
		b := <-f.pending
		perNode[b.Target.Name]++
	}
	for _, n := range []string{"a", "b", "c"} {
		if perNode[n] != 2 {
			t.Fatalf("placements %v, want 2 per node", perNode)
		}
	}
	// A pod whose bind is in flight is not placed twice.
	f.schedule(t, "ns/p0")
	select {
	case b := <-f.pending:
		t.Fatalf("placed again while its bind was in flight: %+v", b)
	default:
	}
	for i := 0; i < 6; i++ {
		f.results <- nil
	}
}

// TestFailedBindIsTakenBack: the assumption goes, so the node counts no
// pod and the pod is queued again.
func TestFailedBindIsTakenBack(t *testing.T) {
	f := newFixture(t, readyNode("a", nil))
	key := f.addPod(t, "p")
	f.schedule(t, key)
	<-f.pending
	if f.s.cache.count("a") != 1 {
		t.Fatal("the pod must be assumed on a while its bind is in flight")
	}
	f.results <- errors.New("etcd unavailable")
	// The pod comes back through the queue (rate-limited) once taken back.
	if got, _ := f.s.queue.Get(); got != key {
		t.Fatalf("queued %q, want %q", got, key)
	}
	if f.s.cache.count("a") != 0 || f.s.cache.isAssumed(key) {
		t.Fatalf("a failed bind must be taken back; a counts %d", f.s.cache.count("a"))
	}
}

func TestObservedPodsReplaceAssumptions(t *testing.T) {
	c := newPodCache()
	c.assume("ns/p", "a", usage{pods: 1})
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns"}}
	c.observe(pod) // still unbound in the informer: the assumption stays
	if c.count("a") != 1 || !c.isAssumed("ns/p") {
		t.Fatal("assumption lost before the binding was seen")
	}
	pod.Spec.NodeName = "a"
	c.observe(pod)
	if c.count("a") != 1 || c.isAssumed("ns/p") {
		t.Fatalf("observed: count %d assumed %v", c.count("a"), c.isAssumed("ns/p"))
	}
	pod.Status.Phase = corev1.PodSucceeded
	c.observe(pod)
	if c.count("a") != 0 {
		t.Fatal("a finished pod no longer counts")
	}
	c.assume("ns/q", "a", usage{pods: 1})
	c.forget("ns/q")
	if c.count("a") != 0 {
		t.Fatal("a deleted pod's assumption must go")
	}
}

// TestGatedPodWaitsForItsGates: a pod with scheduling gates is not placed
// (no bind, no event, no condition written: it keeps the API server's
// SchedulingGated condition); once its gates are gone the update queues it
// and it is bound.
func TestGatedPodWaitsForItsGates(t *testing.T) {
	f := newFixture(t, readyNode("a", nil))
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "g", Namespace: "ns", UID: "uid-g"},
		Spec: corev1.PodSpec{SchedulingGates: []corev1.PodSchedulingGate{{Name: "example.com/quota"}}}}
	client := f.s.client.(*fake.Clientset)
	if _, err := client.CoreV1().Pods("ns").Create(context.Background(), pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	client.ClearActions()
	f.s.cache.observe(pod)
	_ = f.inf.Core().V1().Pods().Informer().GetIndexer().Add(pod)
	if pending(pod) {
		t.Fatal("a gated pod must not be queued")
	}
	if retry := f.schedule(t, "ns/g"); retry {
		t.Fatal("a gated pod is not a scheduling failure")
	}
	select {
	case b := <-f.pending:
		t.Fatalf("gated pod bound: %+v", b)
	default:
	}
	if acts := client.Actions(); len(acts) != 0 {
		t.Fatalf("a gated pod is left alone, got %v", acts)
	}

	ungated := pod.DeepCopy()
	ungated.Spec.SchedulingGates = nil
	_ = f.inf.Core().V1().Pods().Informer().GetIndexer().Update(ungated)
	if !pending(ungated) {
		t.Fatal("without gates the pod is pending")
	}
	f.schedule(t, "ns/g")
	if b := <-f.pending; b.Target.Name != "a" || b.Name != "g" {
		t.Fatalf("bound %+v", b)
	}
	f.results <- nil
}

// TestUnschedulableCondition: a pod that fits nowhere gets upstream's
// FailedScheduling event and PodScheduled=False Unschedulable with the
// same message; the condition is written once while nothing changes, and
// the pods assumed on a node count with their requests.
func TestUnschedulableCondition(t *testing.T) {
	f := newFixture(t, readyNode("a", nil)) // 4 cpu
	clk := testingclock.NewFakeClock(time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC))
	f.s.clock = clk
	recorder := record.NewFakeRecorder(10)
	f.s.recorder = recorder
	client := f.s.client.(*fake.Clientset)
	mk := func(name, cpu string) string {
		p := podRequesting(cpu, "")
		p.Name, p.Namespace, p.UID, p.Generation = name, "ns", types.UID("uid-"+name), 1
		if _, err := client.CoreV1().Pods("ns").Create(context.Background(), p, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		_ = f.inf.Core().V1().Pods().Informer().GetIndexer().Add(p)
		return "ns/" + name
	}
	f.schedule(t, mk("big", "3"))
	<-f.pending // assumed on a with 3 cpu, bind in flight
	client.ClearActions()
	if retry := f.schedule(t, mk("next", "2")); !retry {
		t.Fatal("2 cpu must not fit beside an assumed 3 of 4")
	}
	const want = "0/1 nodes are available: 1 Insufficient cpu."
	if ev := <-recorder.Events; ev != "Warning FailedScheduling "+want {
		t.Fatalf("event %q", ev)
	}
	var patched int
	for _, a := range client.Actions() {
		if a.GetVerb() == "patch" && a.GetSubresource() == "status" {
			patched++
		}
	}
	p, err := client.CoreV1().Pods("ns").Get(context.Background(), "next", metav1.GetOptions{})
	if err != nil || patched != 1 || len(p.Status.Conditions) != 1 {
		t.Fatalf("patched %d, conditions %+v, %v", patched, p.Status.Conditions, err)
	}
	c := p.Status.Conditions[0]
	if c.Type != corev1.PodScheduled || c.Status != corev1.ConditionFalse || c.Reason != corev1.PodReasonUnschedulable ||
		c.Message != want || c.ObservedGeneration != 1 || !c.LastTransitionTime.Time.Equal(clk.Now()) {
		t.Fatalf("condition %+v", c)
	}
	// Tried again with the condition in place: an event, no second write.
	_ = f.inf.Core().V1().Pods().Informer().GetIndexer().Update(p)
	client.ClearActions()
	f.schedule(t, "ns/next")
	<-recorder.Events
	for _, a := range client.Actions() {
		if a.GetVerb() == "patch" {
			t.Fatalf("unchanged condition written again: %v", a)
		}
	}
	f.results <- nil
}

// A node change requeues exactly the pending pods, found by the index:
// bound, deleting and other schedulers' pods stay out of the queue.
func TestNodeChangeRequeuesPendingPods(t *testing.T) {
	f := newFixture(t)
	if f.s.pendingPods == nil {
		t.Fatal("no pending index on the pod informer")
	}
	idx := f.inf.Core().V1().Pods().Informer().GetIndexer()
	now := metav1.Now()
	for _, p := range []*corev1.Pod{
		{ObjectMeta: metav1.ObjectMeta{Name: "waiting", Namespace: "ns"}},
		{ObjectMeta: metav1.ObjectMeta{Name: "bound", Namespace: "ns"}, Spec: corev1.PodSpec{NodeName: "n0"}},
		{ObjectMeta: metav1.ObjectMeta{Name: "deleting", Namespace: "ns", DeletionTimestamp: &now}},
		{ObjectMeta: metav1.ObjectMeta{Name: "other", Namespace: "ns"}, Spec: corev1.PodSpec{SchedulerName: "other"}},
	} {
		_ = idx.Add(p)
	}
	// The waiting pod is bound meanwhile: the index follows the update.
	_ = idx.Add(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "later", Namespace: "ns"}})
	_ = idx.Update(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "later", Namespace: "ns"}, Spec: corev1.PodSpec{NodeName: "n1"}})
	f.s.requeuePending()
	var got []string
	for f.s.queue.Len() > 0 {
		k, _ := f.s.queue.Get()
		got = append(got, k)
		f.s.queue.Done(k)
	}
	if len(got) != 1 || got[0] != "ns/waiting" {
		t.Fatalf("requeued %v, want [ns/waiting]", got)
	}
}
