package scheduler

import (
	"context"
	"errors"
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
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
	for _, n := range nodes {
		_ = inf.Core().V1().Nodes().Informer().GetIndexer().Add(n)
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
	c.assume("ns/p", "a")
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
	c.assume("ns/q", "a")
	c.forget("ns/q")
	if c.count("a") != 0 {
		t.Fatal("a deleted pod's assumption must go")
	}
}
