package container

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// Pending reports whether a pod the kubelet runs is still Pending (its
// getPhase, for pods without sidecar init containers): an init container
// has not succeeded yet, or a container waits without ever having run
// (ContainerCreating, ErrImagePull).
func Pending(s PodState) bool {
	for _, c := range s.InitContainers {
		if t := c.State.Terminated; t == nil || t.ExitCode != 0 {
			return true
		}
	}
	for _, c := range s.Containers {
		if c.State.Waiting != nil && c.LastTerminationState.Terminated == nil {
			return true
		}
	}
	return false
}

// The kubelet's words for a pod whose init containers have not all
// succeeded.
const (
	ReasonContainersNotInitialized = "ContainersNotInitialized"
	ReasonPodCompleted             = "PodCompleted"
	ReasonUnknownContainerStatuses = "UnknownContainerStatuses"
)

// Initialized is the pod's Initialized condition as the kubelet makes it
// (status.GeneratePodInitializedCondition) from the state a runtime
// reports: true once every init container succeeded or a container has
// started; else false, naming the init containers not done yet.
func Initialized(spec *corev1.PodSpec, s PodState) (ok bool, reason, message string) {
	if len(s.InitContainers) == 0 && len(s.Containers) == 0 && len(spec.InitContainers) > 0 {
		return false, ReasonUnknownContainerStatuses, ""
	}
	var unknown, incomplete []string
	for _, c := range spec.InitContainers {
		st, found := status(s.InitContainers, c.Name)
		switch {
		case !found:
			unknown = append(unknown, c.Name)
		case !st.Ready:
			incomplete = append(incomplete, c.Name)
		}
	}
	if s.Phase == corev1.PodSucceeded && len(unknown) == 0 {
		return true, ReasonPodCompleted, ""
	}
	for _, c := range s.Containers {
		if c.State.Running != nil || c.State.Terminated != nil {
			return true, "", ""
		}
	}
	var msgs []string
	if len(unknown) > 0 {
		msgs = append(msgs, fmt.Sprintf("containers with unknown status: %s", unknown))
	}
	if len(incomplete) > 0 {
		msgs = append(msgs, fmt.Sprintf("containers with incomplete status: %s", incomplete))
	}
	if len(msgs) == 0 {
		return true, "", ""
	}
	return false, ReasonContainersNotInitialized, strings.Join(msgs, ", ")
}

func status(statuses []corev1.ContainerStatus, name string) (corev1.ContainerStatus, bool) {
	for _, s := range statuses {
		if s.Name == name {
			return s, true
		}
	}
	return corev1.ContainerStatus{}, false
}
