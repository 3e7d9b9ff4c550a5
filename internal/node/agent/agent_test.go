package agent

import (
	"context"
	"net/netip"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	clocktesting "k8s.io/utils/clock/testing"
)

var ctx = context.Background()

type fixture struct {
	t      *testing.T
	a      *Agent
	client *fake.Clientset
	clock  *clocktesting.FakeClock
}

func newFixture(t *testing.T, names ...string) *fixture {
	t.Helper()
	return newFixtureWith(t, nil, names...)
}

// newFixtureWith is newFixture with a change to the agent's Config.
func newFixtureWith(t *testing.T, mod func(*Config), names ...string) *fixture {
	t.Helper()
	client := fake.NewClientset()
	// The fake API server gives no UIDs; the real one does.
	client.PrependReactor("create", "*", func(action k8stesting.Action) (bool, runtime.Object, error) {
		if o, ok := action.(k8stesting.CreateAction).GetObject().(metav1.Object); ok && o.GetUID() == "" {
			o.SetUID(types.UID("uid-" + o.GetName()))
		}
		return false, nil, nil
	})
	clk := clocktesting.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	cfg := Config{Client: client, Names: names, Zones: []string{"zone-a", "zone-b"},
		InternalIPs: func() []string {
			var ips []string
			for i := range names {
				ips = append(ips, netip.AddrFrom4([4]byte{192, 168, 0, byte(10 + i)}).String())
			}
			return ips
		}(), Clock: clk}
	if mod != nil {
		mod(&cfg)
	}
	a, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	a.podsSynced = func() bool { return true }
	t.Cleanup(func() { a.podQueue.ShutDown(); a.hbQueue.ShutDown() })
	return &fixture{t: t, a: a, client: client, clock: clk}
}

// cache puts the API server's current copy of obj into the agent's
// informer cache, as a watch event would.
func (f *fixture) cache(obj runtime.Object) {
	f.t.Helper()
	switch o := obj.(type) {
	case *corev1.Node:
		n, err := f.client.CoreV1().Nodes().Get(ctx, o.Name, metav1.GetOptions{})
		if err != nil {
			f.t.Fatal(err)
		}
		_ = f.a.nodeFactory.Core().V1().Nodes().Informer().GetStore().Update(n)
		f.a.nodeChanged(n)
	case *corev1.Pod:
		p, err := f.client.CoreV1().Pods(o.Namespace).Get(ctx, o.Name, metav1.GetOptions{})
		if err != nil {
			f.t.Fatal(err)
		}
		_ = f.a.podIndex.Update(p)
	}
}

func (f *fixture) node(name string) *corev1.Node {
	f.t.Helper()
	n, err := f.client.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		f.t.Fatal(err)
	}
	return n
}

func (f *fixture) heartbeat(name string) {
	f.t.Helper()
	if err := f.a.heartbeat(ctx, name); err != nil {
		f.t.Fatal(err)
	}
	f.cache(&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}})
}

// count counts the client's actions of verb on resource[/subresource].
func (f *fixture) count(verb, resource, sub string) int {
	n := 0
	for _, a := range f.client.Actions() {
		if a.GetVerb() == verb && a.GetResource().Resource == resource && a.GetSubresource() == sub {
			n++
		}
	}
	return n
}

func TestLeaseCreatedThenRenewed(t *testing.T) {
	f := newFixture(t, "n0")
	f.heartbeat("n0")
	lease, err := f.client.CoordinationV1().Leases(corev1.NamespaceNodeLease).Get(ctx, "n0", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	node := f.node("n0")
	if *lease.Spec.HolderIdentity != "n0" || *lease.Spec.LeaseDurationSeconds != 40 ||
		!lease.Spec.RenewTime.Time.Equal(f.clock.Now()) {
		t.Fatalf("lease spec %+v", lease.Spec)
	}
	if len(lease.OwnerReferences) != 1 || lease.OwnerReferences[0].Kind != "Node" || lease.OwnerReferences[0].UID != node.UID {
		t.Fatalf("lease owners %+v (node uid %q)", lease.OwnerReferences, node.UID)
	}
	if d := f.a.cfg.RenewInterval(); d != 10*time.Second {
		t.Fatalf("renew interval %s, want 10s (a quarter of 40s)", d)
	}
	for i := 1; i <= 3; i++ {
		f.clock.Step(10 * time.Second)
		f.heartbeat("n0")
		lease, _ = f.client.CoordinationV1().Leases(corev1.NamespaceNodeLease).Get(ctx, "n0", metav1.GetOptions{})
		if !lease.Spec.RenewTime.Time.Equal(f.clock.Now()) {
			t.Fatalf("renewal %d: renewTime %v, want %v", i, lease.Spec.RenewTime, f.clock.Now())
		}
	}
	if got := f.count("update", "leases", ""); got != 3 {
		t.Fatalf("%d lease updates, want 3 (one per renewal, no extra reads)", got)
	}
	if got := f.count("create", "leases", ""); got != 1 {
		t.Fatalf("%d lease creates, want 1", got)
	}
}

func TestHeartbeatsSpreadOverTheInterval(t *testing.T) {
	f := newFixture(t, "n0", "n1", "n2", "n3")
	// The first round registers every node at once; the next renewal of
	// node i is shifted by i/4 of the interval, later ones are 10 s apart.
	for i, want := range []time.Duration{10 * time.Second, 12500 * time.Millisecond, 15 * time.Second, 17500 * time.Millisecond} {
		name := f.a.cfg.Names[i]
		if got := f.a.nextBeat(name); got != want {
			t.Errorf("%s first: %s, want %s", name, got, want)
		}
		if got := f.a.nextBeat(name); got != 10*time.Second {
			t.Errorf("%s second: %s", name, got)
		}
	}
}

func TestNodeRegisteredWithStatus(t *testing.T) {
	f := newFixture(t, "n0", "n1", "n2")
	for _, n := range f.a.cfg.Names {
		f.heartbeat(n)
	}
	for i, want := range []string{"zone-a", "zone-b", "zone-a"} {
		n := f.node(f.a.cfg.Names[i])
		if n.Labels[corev1.LabelTopologyZone] != want || n.Labels[corev1.LabelHostname] != n.Name {
			t.Errorf("%s labels %v", n.Name, n.Labels)
		}
		if n.Status.Capacity.Pods().Value() != 110 || n.Status.Allocatable.Cpu().String() != "4" ||
			n.Status.Allocatable.Memory().String() != "16Gi" {
			t.Errorf("%s capacity %v allocatable %v", n.Name, n.Status.Capacity, n.Status.Allocatable)
		}
		if len(n.Status.Addresses) != 2 || n.Status.Addresses[0].Type != corev1.NodeInternalIP ||
			n.Status.Addresses[0].Address != "192.168.0."+string(rune('0'+1))+string(rune('0'+i)) {
			t.Errorf("%s addresses %v", n.Name, n.Status.Addresses)
		}
		r := condition(n.Status.Conditions, corev1.NodeReady)
		if r == nil || r.Status != corev1.ConditionTrue || r.Reason != "KubeletReady" || r.Message != "kubelet is posting ready status" {
			t.Errorf("%s Ready %+v", n.Name, r)
		}
	}
}

func TestNodeStatusPostedWhenChangedOrDue(t *testing.T) {
	f := newFixture(t, "n0")
	f.heartbeat("n0")
	f.clock.Step(10 * time.Second)
	f.heartbeat("n0")
	if got := f.count("update", "nodes", "status"); got != 0 {
		t.Fatalf("unchanged status written %d times within the report frequency", got)
	}
	// The node lifecycle controller marks the node unknown: the next
	// heartbeat posts Ready again at once.
	n := f.node("n0")
	condition(n.Status.Conditions, corev1.NodeReady).Status = corev1.ConditionUnknown
	condition(n.Status.Conditions, corev1.NodeReady).Reason = "NodeStatusUnknown"
	if _, err := f.client.CoreV1().Nodes().UpdateStatus(ctx, n, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	f.cache(n)
	f.clock.Step(10 * time.Second)
	f.heartbeat("n0")
	r := condition(f.node("n0").Status.Conditions, corev1.NodeReady)
	if r.Status != corev1.ConditionTrue || !r.LastTransitionTime.Time.Equal(f.clock.Now()) {
		t.Fatalf("after unknown: Ready %+v", r)
	}
	before := f.count("update", "nodes", "status")
	f.clock.Step(5 * time.Minute)
	f.heartbeat("n0")
	if got := f.count("update", "nodes", "status"); got != before+1 {
		t.Fatalf("status not reported after 5m: %d updates, want %d", got, before+1)
	}
	r2 := condition(f.node("n0").Status.Conditions, corev1.NodeReady)
	if !r2.LastHeartbeatTime.Time.Equal(f.clock.Now()) || !r2.LastTransitionTime.Equal(&r.LastTransitionTime) {
		t.Fatalf("report: heartbeat %v transition %v", r2.LastHeartbeatTime, r2.LastTransitionTime)
	}
}
