package agent

import (
	"net/netip"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/utils/ptr"

	"github.com/svcplane/svcplane/internal/node/runtime/sim"
)

// withCIDRs registers node name and gives it pod CIDRs, as node IPAM does.
func (f *fixture) withCIDRs(name string, cidrs ...string) {
	f.t.Helper()
	f.heartbeat(name)
	n := f.node(name)
	n.Spec.PodCIDRs, n.Spec.PodCIDR = cidrs, cidrs[0]
	if _, err := f.client.CoreV1().Nodes().Update(ctx, n, metav1.UpdateOptions{}); err != nil {
		f.t.Fatal(err)
	}
	f.cache(n)
}

func (f *fixture) createPod(p *corev1.Pod) *corev1.Pod {
	f.t.Helper()
	if p.Namespace == "" {
		p.Namespace = "default"
	}
	if len(p.Spec.Containers) == 0 {
		p.Spec.Containers = []corev1.Container{{Name: "app", Image: "nginx"}}
	}
	p.Status.Phase = corev1.PodPending
	created, err := f.client.CoreV1().Pods(p.Namespace).Create(ctx, p, metav1.CreateOptions{})
	if err != nil {
		f.t.Fatal(err)
	}
	f.cache(created)
	return created
}

// sync runs one pod sync, refreshes the cache, and returns the pod and the
// requeue delay.
func (f *fixture) sync(p *corev1.Pod) (*corev1.Pod, time.Duration) {
	f.t.Helper()
	after, err := f.a.syncPod(ctx, p.Namespace+"/"+p.Name)
	if err != nil {
		f.t.Fatal(err)
	}
	got, err := f.client.CoreV1().Pods(p.Namespace).Get(ctx, p.Name, metav1.GetOptions{})
	if err != nil {
		return nil, after
	}
	f.cache(got)
	return got, after
}

func podReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

func newPod(name, node string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: corev1.PodSpec{NodeName: node}}
}

func TestPodIPsUniqueInsideTheNodesPodCIDRs(t *testing.T) {
	f := newFixture(t, "n0", "n1")
	f.withCIDRs("n0", "10.244.0.0/24", "fd00:10::/64")
	f.withCIDRs("n1", "10.244.1.0/24", "fd00:10:0:1::/64")
	seen := map[string]bool{}
	for i := 0; i < 40; i++ {
		node := f.a.cfg.Names[i%2]
		p, _ := f.sync(f.createPod(newPod("p"+string(rune('a'+i)), node)))
		n := f.node(node)
		if p.Status.Phase != corev1.PodRunning || len(p.Status.PodIPs) != 2 || p.Status.HostIP != n.Status.Addresses[0].Address {
			t.Fatalf("pod %s: phase %s IPs %v hostIP %s", p.Name, p.Status.Phase, p.Status.PodIPs, p.Status.HostIP)
		}
		for j, ip := range p.Status.PodIPs {
			if !netip.MustParsePrefix(n.Spec.PodCIDRs[j]).Contains(netip.MustParseAddr(ip.IP)) || seen[ip.IP] {
				t.Fatalf("pod %s IP %s not in %s or a duplicate", p.Name, ip.IP, n.Spec.PodCIDRs[j])
			}
			seen[ip.IP] = true
		}
		if p.Status.PodIP != p.Status.PodIPs[0].IP || !podReady(p) || len(p.Status.ContainerStatuses) != 1 ||
			p.Status.ContainerStatuses[0].State.Running == nil || !p.Status.ContainerStatuses[0].Ready {
			t.Fatalf("pod %s status %+v", p.Name, p.Status)
		}
	}
}

func TestPodWaitsForPodCIDRs(t *testing.T) {
	f := newFixture(t, "n0")
	f.heartbeat("n0")
	p, _ := f.sync(f.createPod(newPod("early", "n0")))
	if p.Status.Phase != corev1.PodPending || f.count("update", "pods", "status") != 0 {
		t.Fatalf("pod ran on a node without pod CIDRs: %s", p.Status.Phase)
	}
	n := f.node("n0")
	n.Spec.PodCIDRs = []string{"10.244.5.0/24"}
	_, _ = f.client.CoreV1().Nodes().Update(ctx, n, metav1.UpdateOptions{})
	f.cache(n)
	if f.a.podQueue.Len() != 1 {
		t.Fatalf("the waiting pod was not queued when the node got its CIDRs (queue %d)", f.a.podQueue.Len())
	}
	if p, _ = f.sync(p); p.Status.PodIP != "10.244.5.2" {
		t.Fatalf("pod IP %q", p.Status.PodIP)
	}
}

func TestReadinessDelay(t *testing.T) {
	f := newFixture(t, "n0")
	f.withCIDRs("n0", "10.244.0.0/24")
	pod := newPod("slow", "n0")
	pod.Spec.Containers = []corev1.Container{{Name: "app", Image: "nginx",
		ReadinessProbe: &corev1.Probe{InitialDelaySeconds: 5}}}
	p, after := f.sync(f.createPod(pod))
	if p.Status.Phase != corev1.PodRunning || podReady(p) || after != 5*time.Second {
		t.Fatalf("before the delay: phase %s ready %v requeue %s", p.Status.Phase, podReady(p), after)
	}
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady && (c.Reason != "ContainersNotReady" || c.Message != "containers with unready status: [app]") {
			t.Fatalf("not-ready condition %+v", c)
		}
	}
	f.clock.Step(4 * time.Second)
	if p, after = f.sync(p); podReady(p) || after != time.Second {
		t.Fatalf("1s early: ready %v requeue %s", podReady(p), after)
	}
	f.clock.Step(time.Second)
	if p, after = f.sync(p); !podReady(p) || after != 0 {
		t.Fatalf("after the delay: ready %v requeue %s", podReady(p), after)
	}
	writes := f.count("update", "pods", "status")
	f.sync(p)
	if f.count("update", "pods", "status") != writes {
		t.Fatal("an unchanged status was written again")
	}
}

func TestReadyAnnotationFalseKeepsPodUnready(t *testing.T) {
	f := newFixture(t, "n0")
	f.withCIDRs("n0", "10.244.0.0/24")
	pod := newPod("held", "n0")
	pod.Annotations = map[string]string{ReadyAnnotation: "false"}
	p, after := f.sync(f.createPod(pod))
	if p.Status.Phase != corev1.PodRunning || podReady(p) || after != 0 {
		t.Fatalf("held pod: phase %s ready %v requeue %s", p.Status.Phase, podReady(p), after)
	}
	f.clock.Step(time.Hour)
	if p, _ = f.sync(p); podReady(p) {
		t.Fatal("held pod became ready")
	}
	p.Annotations[ReadyAnnotation] = "true"
	p, _ = f.client.CoreV1().Pods("default").Update(ctx, p, metav1.UpdateOptions{})
	f.cache(p)
	if p, _ = f.sync(p); !podReady(p) {
		t.Fatal("pod not ready after the annotation was lifted")
	}
}

// TestDeletionEndsAtOnce: like a pause container at SIGTERM, a deleted pod
// without a termination delay ends at once, whatever its grace period.
func TestDeletionEndsAtOnce(t *testing.T) {
	f := newFixture(t, "n0")
	f.withCIDRs("n0", "10.244.0.0/24")
	p, _ := f.sync(f.createPod(newPod("web", "n0")))
	p.DeletionTimestamp = &metav1.Time{Time: f.clock.Now().Add(30 * time.Second)}
	p.DeletionGracePeriodSeconds = ptr.To[int64](30)
	p, _ = f.client.CoreV1().Pods("default").Update(ctx, p, metav1.UpdateOptions{})
	f.cache(p)
	if gone, _ := f.sync(p); gone != nil || f.count("delete", "pods", "") != 1 {
		t.Fatalf("a deleted pod without a termination delay should end at once (deletes %d)", f.count("delete", "pods", ""))
	}
}

// TestTerminationEnd: the delay counts from the deletion request and is
// capped by the grace period; a bad value counts as none.
func TestTerminationEnd(t *testing.T) {
	at := time.Unix(1000, 0)
	for _, tc := range []struct {
		delay string
		grace int64
		want  time.Duration // after the deletion request
	}{{"", 30, 0}, {"5s", 30, 5 * time.Second}, {"1m", 30, 30 * time.Second}, {"bogus", 30, 0}, {"-3s", 30, 0}, {"5s", 0, 0}} {
		p := newPod("web", "n0")
		p.Annotations = map[string]string{TerminationDelayAnnotation: tc.delay}
		p.DeletionTimestamp = &metav1.Time{Time: at.Add(time.Duration(tc.grace) * time.Second)}
		p.DeletionGracePeriodSeconds = ptr.To(tc.grace)
		if got := terminationEnd(p).Sub(at); got != tc.want {
			t.Errorf("delay %q grace %ds: ends %v after deletion, want %v", tc.delay, tc.grace, got, tc.want)
		}
	}
}

// TestGracefulDeletion: with a termination delay of the whole grace period
// a deleted pod keeps running and ready (serving) until it ends.
func TestGracefulDeletion(t *testing.T) {
	f := newFixture(t, "n0")
	f.withCIDRs("n0", "10.244.0.0/24")
	pod := newPod("web", "n0")
	pod.Annotations = map[string]string{TerminationDelayAnnotation: "30s"}
	p, _ := f.sync(f.createPod(pod))
	// The API server sets deletionTimestamp = now + grace (30 s).
	p.DeletionTimestamp = &metav1.Time{Time: f.clock.Now().Add(30 * time.Second)}
	p.DeletionGracePeriodSeconds = ptr.To[int64](30)
	p, _ = f.client.CoreV1().Pods("default").Update(ctx, p, metav1.UpdateOptions{})
	f.cache(p)
	p, after := f.sync(p)
	if after != 30*time.Second || f.count("delete", "pods", "") != 0 || !podReady(p) {
		t.Fatalf("terminating: requeue %s, deletes %d, ready %v (serving until the grace ends)", after, f.count("delete", "pods", ""), podReady(p))
	}
	if _, running := f.a.cfg.Runtime.Running(p.UID); !running {
		t.Fatal("pod stopped before its grace period ended")
	}
	f.clock.Step(30 * time.Second)
	if gone, _ := f.sync(p); gone != nil {
		t.Fatal("pod still there after the grace period")
	}
	var del k8sDelete
	for _, a := range f.client.Actions() {
		if d, ok := a.(k8sDelete); ok && a.GetResource().Resource == "pods" {
			del = d
		}
	}
	opts := del.GetDeleteOptions()
	if *opts.GracePeriodSeconds != 0 || opts.Preconditions == nil || *opts.Preconditions.UID != p.UID {
		t.Fatalf("delete options %+v", opts)
	}
	if _, running := f.a.cfg.Runtime.Running(p.UID); running {
		t.Fatal("runtime still runs the deleted pod")
	}
}

func TestActiveDeadlineFailsPod(t *testing.T) {
	f := newFixture(t, "n0")
	f.withCIDRs("n0", "10.244.0.0/24")
	pod := newPod("job", "n0")
	pod.Spec.RestartPolicy = corev1.RestartPolicyNever
	pod.Spec.ActiveDeadlineSeconds = ptr.To[int64](60)
	p, after := f.sync(f.createPod(pod))
	if p.Status.Phase != corev1.PodRunning || after != 60*time.Second {
		t.Fatalf("phase %s requeue %s", p.Status.Phase, after)
	}
	f.clock.Step(60 * time.Second)
	p, _ = f.sync(p)
	if p.Status.Phase != corev1.PodFailed || p.Status.Reason != "DeadlineExceeded" ||
		p.Status.Message != "Pod was active on the node longer than the specified deadline" || podReady(p) {
		t.Fatalf("past deadline: %s %s %q ready %v", p.Status.Phase, p.Status.Reason, p.Status.Message, podReady(p))
	}
	if cs := p.Status.ContainerStatuses[0]; cs.State.Terminated == nil || cs.Ready {
		t.Fatalf("container %+v", cs)
	}
	if _, running := f.a.cfg.Runtime.Running(p.UID); running {
		t.Fatal("failed pod still holds its IP")
	}
}

type k8sDelete = k8stesting.DeleteActionImpl

func TestRestartedAgentKeepsRunningPodsIPs(t *testing.T) {
	f := newFixture(t, "n0")
	f.heartbeat("n0")
	start := metav1.NewTime(f.clock.Now().Add(-time.Hour))
	old := newPod("old", "n0")
	old.Spec.Containers = []corev1.Container{{Name: "app", Image: "nginx"}}
	old, _ = f.client.CoreV1().Pods("default").Create(ctx, old, metav1.CreateOptions{})
	old.Status = corev1.PodStatus{Phase: corev1.PodRunning, StartTime: &start, PodIP: "10.244.0.2", PodIPs: []corev1.PodIP{{IP: "10.244.0.2"}}}
	old, _ = f.client.CoreV1().Pods("default").UpdateStatus(ctx, old, metav1.UpdateOptions{})
	f.cache(old)
	f.withCIDRs("n0", "10.244.0.0/24")
	if p, ok := f.a.cfg.Runtime.Running(old.UID); !ok || p.IPs[0] != "10.244.0.2" {
		t.Fatalf("running pod not adopted: %+v", p)
	}
	p, _ := f.sync(f.createPod(newPod("new", "n0")))
	if p.Status.PodIP == "10.244.0.2" {
		t.Fatal("the adopted pod's IP was given to a new pod")
	}
	if p, _ = f.sync(old); p.Status.PodIP != "10.244.0.2" || !p.Status.StartTime.Equal(&start) || !podReady(p) {
		t.Fatalf("adopted pod status %+v", p.Status)
	}
}

// interleaving runs hook right after the runtime got a node, before the
// agent adopts that node's pods: where a pod worker may sync meanwhile.
type interleaving struct {
	Runtime
	hook func()
}

func (r *interleaving) SetNode(name string, podCIDRs, hostIPs []string) error {
	err := r.Runtime.SetNode(name, podCIDRs, hostIPs)
	if r.hook != nil {
		hook := r.hook
		r.hook = nil
		hook()
	}
	return err
}

// A pod worker that syncs a running pod while its node is being handed to
// the runtime waits for the adoption: it never starts the pod afresh with
// a new address (taking another running pod's address).
func TestPodSyncedDuringAdoptionKeepsItsIP(t *testing.T) {
	rt := &interleaving{}
	f := newFixtureWith(t, func(c *Config) {
		rt.Runtime = sim.New(c.Clock)
		c.Runtime = rt
	}, "n0")
	f.heartbeat("n0")
	start := metav1.NewTime(f.clock.Now().Add(-time.Hour))
	running := func(name, ip string) *corev1.Pod {
		p, _ := f.client.CoreV1().Pods("default").Create(ctx, newPod(name, "n0"), metav1.CreateOptions{})
		p.Status = corev1.PodStatus{Phase: corev1.PodRunning, StartTime: &start, PodIP: ip, PodIPs: []corev1.PodIP{{IP: ip}}}
		p, _ = f.client.CoreV1().Pods("default").UpdateStatus(ctx, p, metav1.UpdateOptions{})
		f.cache(p)
		return p
	}
	a, b := running("a", "10.244.0.2"), running("b", "10.244.0.3")
	rt.hook = func() {
		if _, err := f.a.syncPod(ctx, "default/b"); err != nil {
			t.Error(err)
		}
	}
	f.withCIDRs("n0", "10.244.0.0/24")
	for _, p := range []*corev1.Pod{a, b} {
		want := p.Status.PodIP
		if got, _ := f.sync(p); got.Status.PodIP != want {
			t.Errorf("pod %s: IP %s after the restart, want %s", p.Name, got.Status.PodIP, want)
		}
	}
}

// runCounter counts the runtime's RunPod calls per pod.
type runCounter struct {
	Runtime
	runs map[types.UID]int
}

func (r *runCounter) RunPod(p *corev1.Pod) (sim.Pod, error) {
	r.runs[p.UID]++
	return r.Runtime.RunPod(p)
}

// A pod that ended never runs again, even when a sync reads the pod from
// a cache that has not seen its final status yet.
func TestEndedPodNeverRestartsFromAStaleCache(t *testing.T) {
	runs := &runCounter{runs: map[types.UID]int{}}
	f := newFixtureWith(t, func(c *Config) {
		runs.Runtime = sim.New(c.Clock)
		c.Runtime = runs
	}, "n0")
	f.withCIDRs("n0", "10.244.0.0/24")
	pod := newPod("job", "n0")
	pod.Spec.RestartPolicy = corev1.RestartPolicyNever
	pod.Spec.ActiveDeadlineSeconds = ptr.To[int64](60)
	running, _ := f.sync(f.createPod(pod))
	f.clock.Step(60 * time.Second)
	if p, _ := f.sync(running); p.Status.Phase != corev1.PodFailed {
		t.Fatalf("phase %s", p.Status.Phase)
	}
	// The informer has not delivered the final status yet.
	if err := f.a.podIndex.Update(running); err != nil {
		t.Fatal(err)
	}
	if _, err := f.a.syncPod(ctx, running.Namespace+"/"+running.Name); err != nil {
		t.Fatal(err)
	}
	if n := runs.runs[running.UID]; n != 2 {
		t.Fatalf("RunPod called %d times, want 2 (the first sync and the one that ended it)", n)
	}
	if _, again := f.a.cfg.Runtime.Running(running.UID); again {
		t.Fatal("an ended pod runs again")
	}
	got, err := f.client.CoreV1().Pods("default").Get(ctx, "job", metav1.GetOptions{})
	if err != nil || got.Status.Phase != corev1.PodFailed {
		t.Fatalf("status now %v (%v)", got.Status.Phase, err)
	}
	f.a.podDeleted(got)
	if _, ok := f.a.endedStatus(got.UID); ok {
		t.Fatal("a deleted pod's final status is kept")
	}
}
