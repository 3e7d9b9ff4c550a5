package container

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
)

// PodState is what a runtime whose containers run processes knows of one
// pod: its containers' statuses (state, last termination, restarts,
// readiness from its probes) and the phase they add up to.
type PodState struct {
	// Phase is Pending while an init container has not succeeded or a
	// container has never run, then Running, or Succeeded/Failed once
	// every container ended for good (restartPolicy Never or OnFailure).
	Phase corev1.PodPhase
	// Containers are in the order of the pod's spec.containers.
	Containers []corev1.ContainerStatus
	// InitContainers are in the order of spec.initContainers.
	InitContainers []corev1.ContainerStatus
}

// Ready reports whether every container is ready.
func (s PodState) Ready() bool {
	for _, c := range s.Containers {
		if !c.Ready {
			return false
		}
	}
	return len(s.Containers) > 0
}

// Reporter is implemented by runtimes whose containers end, restart and
// are probed on their own (the netns runtime): the agent writes the
// statuses they report and looks again when they say a pod changed.
type Reporter interface {
	// PodState returns the state of a pod the runtime runs.
	PodState(uid types.UID) (PodState, bool)
	// SetOnChange is called once, before any pod runs, with the function
	// the runtime calls (namespace, name) when a pod's state changes.
	SetOnChange(func(namespace, name string))
}
