package netns

import (
	"regexp"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/svcplane/svcplane/internal/node/container"
	"github.com/svcplane/svcplane/internal/node/runtime/sim"
	"github.com/svcplane/svcplane/internal/testutil"
)

// A container whose image matches UnpullableImages never runs: it waits
// in ErrImagePull, then ImagePullBackOff, trying again after 10 s, 20 s…;
// the pod stays Pending and unready while its other container runs.
func TestUnpullableImageBacksOff(t *testing.T) {
	clk := clocktesting.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	r := &Runtime{cfg: Config{Clock: clk, UnpullableImages: regexp.MustCompile(`^webserver:404$`)}}
	spec := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "web", UID: types.UID("u")},
		Spec: corev1.PodSpec{Containers: []corev1.Container{
			{Name: "bad", Image: "webserver:404"},
			{Name: "ok", Image: agnhostImage, Args: []string{"pause"}},
		}}}
	p := newPod(r, spec, sim.Pod{UID: "u"}, &nodeNet{})
	go p.run()
	t.Cleanup(func() { p.cancel(); <-p.done })
	waiting := func(reason, msg string) {
		t.Helper()
		testutil.Eventually(t, 5*time.Second, reason, func() bool {
			s := p.state()
			w := s.Containers[0].State.Waiting
			return w != nil && w.Reason == reason && regexp.MustCompile(msg).MatchString(w.Message) && clk.HasWaiters() &&
				s.Containers[1].State.Running != nil
		})
		if s := p.state(); s.Phase != corev1.PodPending || s.Ready() || s.Containers[0].Ready {
			t.Fatalf("while %s the pod is %s, ready %v", reason, s.Phase, s.Ready())
		}
	}
	waiting("ErrImagePull", `^Failed to pull image "webserver:404": `)
	clk.Step(time.Second)
	waiting("ImagePullBackOff", `^Back-off pulling image "webserver:404"$`)
	clk.Step(9 * time.Second)
	if w := p.state().Containers[0].State.Waiting; w.Reason != "ImagePullBackOff" {
		t.Fatalf("tried again before its back-off ended: %s", w.Reason)
	}
	clk.Step(time.Second)
	waiting("ErrImagePull", `^Failed to pull image`)
	clk.Step(time.Second)
	waiting("ImagePullBackOff", `^Back-off`)
	clk.Step(19 * time.Second) // now 20 s
	if w := p.state().Containers[0].State.Waiting; w.Reason != "ImagePullBackOff" {
		t.Fatalf("the second back-off is not 20 s: %s", w.Reason)
	}
}

// The phase follows the kubelet's getPhase for the states a netns pod has.
func TestPendingPhase(t *testing.T) {
	waiting := corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "ContainerCreating"}}
	running := corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}
	exited := func(code int32) corev1.ContainerState {
		return corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: code}}
	}
	for _, tc := range []struct {
		name    string
		inits   []corev1.ContainerStatus
		ctrs    []corev1.ContainerStatus
		pending bool
	}{
		{name: "running", ctrs: []corev1.ContainerStatus{{State: running}}},
		{name: "creating", ctrs: []corev1.ContainerStatus{{State: waiting}}, pending: true},
		{name: "one never ran", ctrs: []corev1.ContainerStatus{{State: running}, {State: waiting}}, pending: true},
		{name: "crash looping", ctrs: []corev1.ContainerStatus{{State: waiting, LastTerminationState: exited(1)}}},
		{name: "init running", inits: []corev1.ContainerStatus{{State: running}}, ctrs: []corev1.ContainerStatus{{State: waiting}}, pending: true},
		{name: "init done", inits: []corev1.ContainerStatus{{State: exited(0)}}, ctrs: []corev1.ContainerStatus{{State: running}}},
		{name: "init failed, retrying", inits: []corev1.ContainerStatus{{State: waiting, LastTerminationState: exited(1)}},
			ctrs: []corev1.ContainerStatus{{State: waiting}}, pending: true},
	} {
		s := container.PodState{Phase: corev1.PodRunning, InitContainers: tc.inits, Containers: tc.ctrs}
		if got := container.Pending(s); got != tc.pending {
			t.Errorf("%s: pending %v, want %v", tc.name, got, tc.pending)
		}
	}
}

// Behind an init container that cannot start, the pod's containers wait
// as the kubelet shows them: PodInitializing, the pod Pending and its
// Initialized condition false.
func TestContainersWaitPodInitializing(t *testing.T) {
	clk := clocktesting.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	r := &Runtime{cfg: Config{Clock: clk, UnpullableImages: regexp.MustCompile(`^nosuch$`)}}
	spec := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "web", UID: types.UID("u")},
		Spec: corev1.PodSpec{
			InitContainers: []corev1.Container{{Name: "init", Image: "nosuch"}},
			Containers:     []corev1.Container{{Name: "run1", Image: agnhostImage, Args: []string{"pause"}}}}}
	p := newPod(r, spec, sim.Pod{UID: "u"}, &nodeNet{})
	if w := p.state().Containers[0].State.Waiting; w == nil || w.Reason != "PodInitializing" {
		t.Fatalf("before the start: %+v", p.state().Containers[0].State)
	}
	go p.run()
	t.Cleanup(func() { p.cancel(); <-p.done })
	testutil.Eventually(t, 5*time.Second, "the init container's pull failing", func() bool {
		w := p.state().InitContainers[0].State.Waiting
		return w != nil && w.Reason == "ErrImagePull"
	})
	s := p.state()
	if w := s.Containers[0].State.Waiting; w == nil || w.Reason != "PodInitializing" || s.Phase != corev1.PodPending {
		t.Fatalf("while init waits: phase %s, run1 %+v", s.Phase, s.Containers[0].State)
	}
	if ok, reason, msg := container.Initialized(&spec.Spec, s); ok || reason != "ContainersNotInitialized" || msg != "containers with incomplete status: [init]" {
		t.Fatalf("Initialized %v %q %q", ok, reason, msg)
	}
}
