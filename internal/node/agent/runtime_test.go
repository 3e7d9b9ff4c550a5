package agent

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	clocktesting "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"

	"github.com/svcplane/svcplane/internal/node/container"
	"github.com/svcplane/svcplane/internal/node/runtime/sim"
)

// reporting is a runtime whose containers report their own state: the
// simulated runtime's addresses plus states set by the test.
type reporting struct {
	*sim.Runtime
	states   map[types.UID]container.PodState
	onChange func(namespace, name string)
}

func (r *reporting) PodState(uid types.UID) (container.PodState, bool) {
	s, ok := r.states[uid]
	return s, ok
}

func (r *reporting) SetOnChange(f func(namespace, name string)) { r.onChange = f }

func TestReportedContainerStatesDecideReadinessAndPhase(t *testing.T) {
	rt := &reporting{Runtime: sim.New(clocktesting.NewFakeClock(time.Unix(0, 0))), states: map[types.UID]container.PodState{}}
	f := newFixtureWith(t, func(c *Config) { c.Runtime = rt }, "n0")
	if rt.onChange == nil {
		t.Fatal("the agent did not hand the runtime its change callback")
	}
	f.withCIDRs("n0", "10.244.0.0/24")
	p := newPod("web", "n0")
	p.Spec.Containers = []corev1.Container{{Name: "a", Image: "x"}, {Name: "b", Image: "x"}}
	p = f.createPod(p)
	started := metav1.NewTime(time.Unix(100, 0))
	running := corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: started}}
	rt.states[p.UID] = container.PodState{Phase: corev1.PodRunning, Containers: []corev1.ContainerStatus{
		{Name: "a", Ready: true, State: running}, {Name: "b", Ready: false, State: running}}}
	got, _ := f.sync(p)
	if podReady(got) || got.Status.Phase != corev1.PodRunning {
		t.Fatalf("one unready container: phase %s ready %v", got.Status.Phase, podReady(got))
	}
	for _, c := range got.Status.Conditions {
		if c.Type == corev1.PodReady && c.Message != "containers with unready status: [b]" {
			t.Fatalf("Ready condition message %q names the wrong containers", c.Message)
		}
	}
	rt.states[p.UID] = container.PodState{Phase: corev1.PodRunning, Containers: []corev1.ContainerStatus{
		{Name: "a", Ready: true, State: running}, {Name: "b", Ready: true, State: running}}}
	if got, _ = f.sync(got); !podReady(got) {
		t.Fatal("all containers ready, pod not Ready")
	}
	exited := corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 3, Reason: "Error"}}
	rt.states[p.UID] = container.PodState{Phase: corev1.PodFailed, Containers: []corev1.ContainerStatus{
		{Name: "a", State: exited}, {Name: "b", State: exited}}}
	got, _ = f.sync(got)
	if got.Status.Phase != corev1.PodFailed || podReady(got) || got.Status.ContainerStatuses[0].State.Terminated.ExitCode != 3 {
		t.Fatalf("failed containers: %+v", got.Status)
	}
	if _, running := rt.Running(p.UID); running {
		t.Fatal("a failed pod still runs")
	}
}

// stopping is a runtime whose containers take their time to stop.
type stopping struct {
	*sim.Runtime
	calls    int
	deadline time.Time
	stopped  bool
}

func (s *stopping) StopPod(_ types.UID, deadline time.Time) bool {
	s.calls++
	s.deadline = deadline
	return s.stopped
}

func TestDeletedPodWaitsForAStoppingRuntime(t *testing.T) {
	rt := &stopping{Runtime: sim.New(clocktesting.NewFakeClock(time.Unix(0, 0)))}
	f := newFixtureWith(t, func(c *Config) { c.Runtime = rt }, "n0")
	f.withCIDRs("n0", "10.244.0.0/24")
	p, _ := f.sync(f.createPod(newPod("web", "n0")))
	end := f.clock.Now().Add(30 * time.Second)
	p.DeletionTimestamp, p.DeletionGracePeriodSeconds = &metav1.Time{Time: end}, ptr.To[int64](30)
	p, _ = f.client.CoreV1().Pods("default").Update(ctx, p, metav1.UpdateOptions{})
	f.cache(p)
	p, after := f.sync(p)
	if p == nil || rt.calls != 1 || !rt.deadline.Equal(end) || after != 30*time.Second || f.count("delete", "pods", "") != 0 {
		t.Fatalf("stopping: pod %v, StopPod calls %d (deadline %v), requeue %s, deletes %d", p != nil, rt.calls, rt.deadline, after, f.count("delete", "pods", ""))
	}
	rt.stopped = true
	if gone, _ := f.sync(p); gone != nil || f.count("delete", "pods", "") != 1 {
		t.Fatal("pod not deleted once its containers stopped")
	}
	if _, running := rt.Running(p.UID); running {
		t.Fatal("a stopped pod still runs")
	}
}
