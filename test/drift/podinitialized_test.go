package drift

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/kubernetes/pkg/kubelet/status"

	"github.com/svcplane/svcplane/internal/node/container"
)

// The Initialized condition the node agent writes for a runtime's
// container states is the kubelet's (status.GeneratePodInitializedCondition)
// on the same pod, statuses and phase.
func TestPodInitializedConditionMatchesKubelet(t *testing.T) {
	running := corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}
	waiting := corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "PodInitializing"}}
	exited := func(code int32) corev1.ContainerState {
		return corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: code}}
	}
	st := func(name string, s corev1.ContainerState, ready bool) corev1.ContainerStatus {
		return corev1.ContainerStatus{Name: name, State: s, Ready: ready}
	}
	spec := corev1.PodSpec{InitContainers: []corev1.Container{{Name: "i1"}, {Name: "i2"}}, Containers: []corev1.Container{{Name: "c"}}}
	noInits := corev1.PodSpec{Containers: []corev1.Container{{Name: "c"}}}
	for _, tc := range []struct {
		name  string
		spec  corev1.PodSpec
		state container.PodState
	}{
		{"no init containers", noInits, container.PodState{Phase: corev1.PodRunning, Containers: []corev1.ContainerStatus{st("c", running, true)}}},
		{"no statuses yet", spec, container.PodState{Phase: corev1.PodPending}},
		{"first init running", spec, container.PodState{Phase: corev1.PodPending,
			InitContainers: []corev1.ContainerStatus{st("i1", running, false), st("i2", waiting, false)},
			Containers:     []corev1.ContainerStatus{st("c", waiting, false)}}},
		{"second init crash looping", spec, container.PodState{Phase: corev1.PodPending,
			InitContainers: []corev1.ContainerStatus{st("i1", exited(0), true), {Name: "i2", State: waiting, LastTerminationState: exited(1)}},
			Containers:     []corev1.ContainerStatus{st("c", waiting, false)}}},
		{"an init status missing", spec, container.PodState{Phase: corev1.PodPending,
			InitContainers: []corev1.ContainerStatus{st("i1", running, false)},
			Containers:     []corev1.ContainerStatus{st("c", waiting, false)}}},
		{"inits done", spec, container.PodState{Phase: corev1.PodRunning,
			InitContainers: []corev1.ContainerStatus{st("i1", exited(0), true), st("i2", exited(0), true)},
			Containers:     []corev1.ContainerStatus{st("c", running, true)}}},
		{"inits done, container not started", spec, container.PodState{Phase: corev1.PodPending,
			InitContainers: []corev1.ContainerStatus{st("i1", exited(0), true), st("i2", exited(0), true)},
			Containers:     []corev1.ContainerStatus{st("c", waiting, false)}}},
		{"succeeded", spec, container.PodState{Phase: corev1.PodSucceeded,
			InitContainers: []corev1.ContainerStatus{st("i1", exited(0), true), st("i2", exited(0), true)},
			Containers:     []corev1.ContainerStatus{st("c", exited(0), false)}}},
		{"failed in init", spec, container.PodState{Phase: corev1.PodFailed,
			InitContainers: []corev1.ContainerStatus{st("i1", exited(2), false), st("i2", waiting, false)},
			Containers:     []corev1.ContainerStatus{st("c", waiting, false)}}},
	} {
		pod := &corev1.Pod{Spec: tc.spec}
		var all []corev1.ContainerStatus
		all = append(all, tc.state.InitContainers...)
		all = append(all, tc.state.Containers...)
		want := status.GeneratePodInitializedCondition(pod, &corev1.PodStatus{}, all, tc.state.Phase)
		ok, reason, msg := container.Initialized(&tc.spec, tc.state)
		if got := (want.Status == corev1.ConditionTrue); got != ok || want.Reason != reason || want.Message != msg {
			t.Errorf("%s: ours %v %q %q, kubelet's %s %q %q", tc.name, ok, reason, msg, want.Status, want.Reason, want.Message)
		}
	}
}
