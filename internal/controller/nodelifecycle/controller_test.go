package nodelifecycle

import (
	"context"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	clocktesting "k8s.io/utils/clock/testing"
)

var ctx = context.Background()

type fixture struct {
	t      *testing.T
	c      *Controller
	client *fake.Clientset
	f      informers.SharedInformerFactory
	clock  *clocktesting.FakeClock
}

func newFixture(t *testing.T, objs ...runtime.Object) *fixture {
	client := fake.NewClientset(objs...)
	f := informers.NewSharedInformerFactory(client, 0)
	clk := clocktesting.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	c := New(client, f.Core().V1().Nodes(), f.Coordination().V1().Leases(), f.Core().V1().Pods(), clk, Config{})
	t.Cleanup(c.queue.ShutDown)
	fx := &fixture{t: t, c: c, client: client, f: f, clock: clk}
	fx.refresh()
	return fx
}

// refresh copies the fake API server's objects into the informer caches,
// as watch events would.
func (fx *fixture) refresh() {
	nodes, _ := fx.client.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	_ = fx.f.Core().V1().Nodes().Informer().GetStore().Replace(toObjs(nodes.Items), "")
	leases, _ := fx.client.CoordinationV1().Leases(corev1.NamespaceNodeLease).List(ctx, metav1.ListOptions{})
	var ls []interface{}
	for i := range leases.Items {
		ls = append(ls, &leases.Items[i])
	}
	_ = fx.f.Coordination().V1().Leases().Informer().GetStore().Replace(ls, "")
	pods, _ := fx.client.CoreV1().Pods("").List(ctx, metav1.ListOptions{})
	var ps []interface{}
	for i := range pods.Items {
		ps = append(ps, &pods.Items[i])
	}
	_ = fx.f.Core().V1().Pods().Informer().GetIndexer().Replace(ps, "")
}

func toObjs(nodes []corev1.Node) []interface{} {
	var out []interface{}
	for i := range nodes {
		out = append(out, &nodes[i])
	}
	return out
}

func (fx *fixture) monitor() {
	fx.t.Helper()
	if err := fx.c.monitorNodeHealth(ctx); err != nil {
		fx.t.Fatal(err)
	}
	fx.refresh()
	if err := fx.c.sync(ctx, "n1"); err != nil {
		fx.t.Fatal(err)
	}
	fx.refresh()
}

func (fx *fixture) node() *corev1.Node {
	n, err := fx.client.CoreV1().Nodes().Get(ctx, "n1", metav1.GetOptions{})
	if err != nil {
		fx.t.Fatal(err)
	}
	return n
}

func (fx *fixture) renewLease() {
	l, _ := fx.client.CoordinationV1().Leases(corev1.NamespaceNodeLease).Get(ctx, "n1", metav1.GetOptions{})
	l.Spec.RenewTime = &metav1.MicroTime{Time: fx.clock.Now()}
	if _, err := fx.client.CoordinationV1().Leases(corev1.NamespaceNodeLease).Update(ctx, l, metav1.UpdateOptions{}); err != nil {
		fx.t.Fatal(err)
	}
}

func readyNode(now time.Time) *corev1.Node {
	t := metav1.NewTime(now)
	return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1", CreationTimestamp: t},
		Spec: corev1.NodeSpec{Taints: []corev1.Taint{{Key: "dedicated", Value: "x", Effect: corev1.TaintEffectNoSchedule}}},
		Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{
			{Type: corev1.NodeMemoryPressure, Status: corev1.ConditionFalse, LastHeartbeatTime: t, LastTransitionTime: t},
			{Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady", LastHeartbeatTime: t, LastTransitionTime: t},
		}}}
}

func lease(now time.Time) *coordinationv1.Lease {
	return &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: "n1", Namespace: corev1.NamespaceNodeLease},
		Spec: coordinationv1.LeaseSpec{RenewTime: &metav1.MicroTime{Time: now}}}
}

func taintKeys(n *corev1.Node) map[string]bool {
	out := map[string]bool{}
	for _, t := range n.Spec.Taints {
		out[t.Key+":"+string(t.Effect)] = true
	}
	return out
}

func TestLeaseKeepsNodeReadyUntilGracePeriodThenUnknownAndTainted(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default"}, Spec: corev1.PodSpec{NodeName: "n1"},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}}}
	fx := newFixture(t, readyNode(start), lease(start), pod)
	fx.monitor()
	// The lease is renewed for two minutes while the Ready heartbeat
	// stays old: the node stays Ready.
	for i := 0; i < 12; i++ {
		fx.clock.Step(10 * time.Second)
		fx.renewLease()
		fx.refresh()
		fx.monitor()
	}
	if r := condition(fx.node().Status.Conditions, corev1.NodeReady); r.Status != corev1.ConditionTrue {
		t.Fatalf("renewing node marked %s", r.Status)
	}
	// The agent stops: after the grace period (50 s, upstream's default)
	// the node is Unknown.
	fx.clock.Step(50 * time.Second)
	fx.monitor()
	if r := condition(fx.node().Status.Conditions, corev1.NodeReady); r.Status != corev1.ConditionTrue {
		t.Fatalf("marked %s at exactly the grace period", r.Status)
	}
	fx.clock.Step(time.Second)
	fx.monitor()
	n := fx.node()
	r := condition(n.Status.Conditions, corev1.NodeReady)
	if r.Status != corev1.ConditionUnknown || r.Reason != "NodeStatusUnknown" || r.Message != "Kubelet stopped posting node status." ||
		!r.LastTransitionTime.Time.Equal(fx.clock.Now()) {
		t.Fatalf("Ready %+v", r)
	}
	if m := condition(n.Status.Conditions, corev1.NodeMemoryPressure); m.Status != corev1.ConditionUnknown {
		t.Fatalf("MemoryPressure %+v", m)
	}
	if d := condition(n.Status.Conditions, corev1.NodeDiskPressure); d.Status != corev1.ConditionUnknown || d.Reason != "NodeStatusNeverUpdated" {
		t.Fatalf("DiskPressure %+v", d)
	}
	keys := taintKeys(n)
	if !keys["node.kubernetes.io/unreachable:NoSchedule"] || !keys["node.kubernetes.io/unreachable:NoExecute"] || !keys["dedicated:NoSchedule"] || len(keys) != 3 {
		t.Fatalf("taints %v", n.Spec.Taints)
	}
	for _, tn := range n.Spec.Taints {
		if tn.Effect == corev1.TaintEffectNoExecute && (tn.TimeAdded == nil || !tn.TimeAdded.Time.Equal(fx.clock.Now())) {
			t.Fatalf("NoExecute taint timeAdded %v", tn.TimeAdded)
		}
	}
	p, _ := fx.client.CoreV1().Pods("default").Get(ctx, "web", metav1.GetOptions{})
	if p.Status.Conditions[0].Status != corev1.ConditionFalse {
		t.Fatalf("pod on the lost node still Ready")
	}
	// A Ready pod that shows up on the lost node is marked too.
	late := pod.DeepCopy()
	late.Name = "late"
	late, _ = fx.client.CoreV1().Pods("default").Create(ctx, late, metav1.CreateOptions{})
	fx.refresh()
	fx.c.podChanged(late)
	if fx.c.queue.Len() == 0 {
		t.Fatal("the node of a Ready pod on a lost node was not queued")
	}
	fx.monitor()
	if p, _ := fx.client.CoreV1().Pods("default").Get(ctx, "late", metav1.GetOptions{}); p.Status.Conditions[0].Status != corev1.ConditionFalse {
		t.Fatal("late pod on the lost node still Ready")
	}

	// The agent comes back: it renews the lease and posts Ready.
	fx.clock.Step(time.Minute)
	fx.renewLease()
	n = fx.node()
	r = condition(n.Status.Conditions, corev1.NodeReady)
	r.Status, r.Reason, r.LastHeartbeatTime = corev1.ConditionTrue, "KubeletReady", metav1.NewTime(fx.clock.Now())
	_, _ = fx.client.CoreV1().Nodes().UpdateStatus(ctx, n, metav1.UpdateOptions{})
	fx.refresh()
	fx.monitor()
	n = fx.node()
	if keys := taintKeys(n); len(keys) != 1 || !keys["dedicated:NoSchedule"] {
		t.Fatalf("taints after return %v", n.Spec.Taints)
	}
	if r := condition(n.Status.Conditions, corev1.NodeReady); r.Status != corev1.ConditionTrue {
		t.Fatalf("back node marked %s", r.Status)
	}
}

func TestNodeThatNeverPostedStatus(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	fx := newFixture(t, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1", CreationTimestamp: metav1.NewTime(start)}})
	fx.clock.Step(60 * time.Second)
	fx.monitor()
	if len(fx.node().Status.Conditions) != 0 {
		t.Fatal("marked within the startup grace period (60 s)")
	}
	fx.clock.Step(time.Second)
	fx.monitor()
	n := fx.node()
	r := condition(n.Status.Conditions, corev1.NodeReady)
	if r == nil || r.Status != corev1.ConditionUnknown || r.Reason != "NodeStatusNeverUpdated" || r.Message != "Kubelet never posted node status." {
		t.Fatalf("Ready %+v", r)
	}
	if keys := taintKeys(n); !keys["node.kubernetes.io/unreachable:NoSchedule"] {
		t.Fatalf("taints %v", n.Spec.Taints)
	}
}

func TestNotReadyTaints(t *testing.T) {
	now := metav1.NewTime(time.Unix(100, 0))
	got, changed := wantTaints([]corev1.Taint{{Key: corev1.TaintNodeUnreachable, Effect: corev1.TaintEffectNoSchedule}}, corev1.ConditionFalse, now)
	if !changed || len(got) != 2 || got[0].Key != corev1.TaintNodeNotReady || got[1].Key != corev1.TaintNodeNotReady ||
		got[1].Effect != corev1.TaintEffectNoExecute || !got[1].TimeAdded.Equal(&now) {
		t.Fatalf("Ready=False: %v", got)
	}
	if _, changed := wantTaints(got, corev1.ConditionFalse, now); changed {
		t.Fatal("unchanged taints reported as a change")
	}
}

// TestRunMonitorsOnTheInjectedClock: Run's monitor loop ticks on the
// controller's clock, so stepping a fake clock past the grace period marks
// a silent node Unknown without waiting for real time.
func TestRunMonitorsOnTheInjectedClock(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	client := fake.NewClientset(readyNode(start), lease(start))
	f := informers.NewSharedInformerFactory(client, 0)
	clk := clocktesting.NewFakeClock(start)
	c := New(client, f.Core().V1().Nodes(), f.Coordination().V1().Leases(), f.Core().V1().Pods(), clk, Config{})
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { c.Run(runCtx, 1); close(done) }()
	f.Start(runCtx.Done())
	defer func() { cancel(); <-done }()
	// The ticker exists once the first pass (at start) has recorded n1.
	if err := wait.PollUntilContextTimeout(ctx, time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
		return clk.HasWaiters(), nil
	}); err != nil {
		t.Fatal("no ticker on the injected clock")
	}
	clk.Step(51 * time.Second)
	if err := wait.PollUntilContextTimeout(ctx, 10*time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
		n, err := client.CoreV1().Nodes().Get(ctx, "n1", metav1.GetOptions{})
		return err == nil && condition(n.Status.Conditions, corev1.NodeReady).Status == corev1.ConditionUnknown, nil
	}); err != nil {
		t.Fatal("n1 not Unknown after the fake clock passed the grace period")
	}
}
