package agent

import (
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/svcplane/svcplane/internal/node/container"
	"github.com/svcplane/svcplane/internal/node/runtime/sim"
)

// The kubelet's wording.
const (
	reasonDeadlineExceeded   = "DeadlineExceeded"
	messageDeadlineExceeded  = "Pod was active on the node longer than the specified deadline"
	reasonContainersNotReady = "ContainersNotReady"
	reasonPodFailed          = "PodFailed"
	reasonPodCompleted       = "PodCompleted"
)

// podStatus is the status of a pod the runtime runs as run, at now, and
// when to look again (0: nothing pending). state, when the runtime reports
// one (container.Reporter), gives the containers' statuses, readiness and
// the phase; else containers run from the start and are ready after their
// readiness probes' initial delay.
func podStatus(pod *corev1.Pod, run sim.Pod, state *container.PodState, hostIPs []string, now time.Time) (corev1.PodStatus, time.Duration) {
	s := *pod.Status.DeepCopy()
	s.Phase = corev1.PodRunning
	s.Reason, s.Message = "", ""
	s.HostIP, s.HostIPs = "", nil
	for _, ip := range hostIPs {
		s.HostIPs = append(s.HostIPs, corev1.HostIP{IP: ip})
	}
	if len(hostIPs) > 0 {
		s.HostIP = hostIPs[0]
	}
	s.PodIP, s.PodIPs = "", nil
	for _, ip := range run.IPs {
		s.PodIPs = append(s.PodIPs, corev1.PodIP{IP: ip})
	}
	if len(run.IPs) > 0 {
		s.PodIP = run.IPs[0]
	}
	if s.StartTime == nil {
		s.StartTime = ptrTime(run.StartedAt)
	}
	var after time.Duration
	var ready bool
	if state != nil {
		ready = state.Ready() && pod.Annotations[ReadyAnnotation] != "false"
	} else {
		readyAt := run.ReadyAt(pod)
		ready = !now.Before(readyAt) && pod.Annotations[ReadyAnnotation] != "false"
		if !ready && pod.Annotations[ReadyAnnotation] != "false" {
			after = readyAt.Sub(now)
		}
	}
	failed := false
	if d := pod.Spec.ActiveDeadlineSeconds; d != nil {
		deadline := s.StartTime.Add(time.Duration(*d) * time.Second)
		if !now.Before(deadline) {
			failed, ready = true, false
			s.Phase, s.Reason, s.Message = corev1.PodFailed, reasonDeadlineExceeded, messageDeadlineExceeded
			after = 0
		} else if left := deadline.Sub(now); after == 0 || left < after {
			after = left
		}
	}
	if state != nil && !failed {
		s.InitContainerStatuses, s.ContainerStatuses = state.InitContainers, state.Containers
		switch state.Phase {
		case corev1.PodSucceeded, corev1.PodFailed:
			s.Phase, ready, after = state.Phase, false, 0
		case corev1.PodPending:
			s.Phase = corev1.PodPending
		}
	} else {
		s.InitContainerStatuses = initContainerStatuses(pod, run)
		s.ContainerStatuses = containerStatuses(pod, run, ready, failed, now)
	}
	notReadyReason, notReadyMsg := "", ""
	if !ready {
		notReadyReason = reasonContainersNotReady
		var names []string
		for i, c := range pod.Spec.Containers {
			if state != nil && i < len(state.Containers) && state.Containers[i].Ready {
				continue
			}
			names = append(names, c.Name)
		}
		notReadyMsg = fmt.Sprintf("containers with unready status: [%s]", strings.Join(names, " "))
		switch {
		case failed || s.Phase == corev1.PodFailed:
			notReadyReason, notReadyMsg = reasonPodFailed, ""
		case s.Phase == corev1.PodSucceeded:
			notReadyReason, notReadyMsg = reasonPodCompleted, ""
		}
	}
	setCondition(&s, corev1.PodReadyToStartContainers, !failed, "", "", now)
	initialized, initReason, initMsg := true, "", ""
	if state != nil {
		st := *state
		st.Phase = s.Phase
		initialized, initReason, initMsg = container.Initialized(&pod.Spec, st)
	}
	setCondition(&s, corev1.PodInitialized, initialized, initReason, initMsg, now)
	setCondition(&s, corev1.ContainersReady, ready, notReadyReason, notReadyMsg, now)
	setCondition(&s, corev1.PodReady, ready, notReadyReason, notReadyMsg, now)
	setCondition(&s, corev1.PodScheduled, true, "", "", now)
	return s, after
}

func ptrTime(t time.Time) *metav1.Time {
	m := metav1.NewTime(t.Truncate(time.Second))
	return &m
}

// setCondition sets a pod condition, keeping its transition time while its
// status is unchanged.
func setCondition(s *corev1.PodStatus, t corev1.PodConditionType, ok bool, reason, msg string, now time.Time) {
	status := corev1.ConditionFalse
	if ok {
		status = corev1.ConditionTrue
	}
	c := corev1.PodCondition{Type: t, Status: status, Reason: reason, Message: msg, LastTransitionTime: *ptrTime(now)}
	for i := range s.Conditions {
		if s.Conditions[i].Type == t {
			if s.Conditions[i].Status == status {
				c.LastTransitionTime = s.Conditions[i].LastTransitionTime
			}
			s.Conditions[i] = c
			return
		}
	}
	s.Conditions = append(s.Conditions, c)
}

func containerStatuses(pod *corev1.Pod, run sim.Pod, ready, failed bool, now time.Time) []corev1.ContainerStatus {
	var out []corev1.ContainerStatus
	for _, c := range pod.Spec.Containers {
		cs := corev1.ContainerStatus{Name: c.Name, Image: c.Image, ImageID: imageID(c.Image),
			ContainerID: sim.ContainerID(run.UID, c.Name), Ready: ready, Started: ptrBool(!failed)}
		started := *ptrTime(run.StartedAt)
		for _, old := range pod.Status.ContainerStatuses {
			if old.Name == c.Name && old.State.Running != nil {
				started = old.State.Running.StartedAt
			}
		}
		if failed {
			// The kubelet kills the containers of a pod past its deadline.
			cs.State.Terminated = &corev1.ContainerStateTerminated{ExitCode: 137, Reason: "Error",
				StartedAt: started, FinishedAt: *ptrTime(now), ContainerID: cs.ContainerID}
		} else {
			cs.State.Running = &corev1.ContainerStateRunning{StartedAt: started}
		}
		for _, old := range pod.Status.ContainerStatuses {
			if old.Name == c.Name && old.State.Terminated != nil && failed {
				cs.State.Terminated = old.State.Terminated
			}
		}
		out = append(out, cs)
	}
	return out
}

func initContainerStatuses(pod *corev1.Pod, run sim.Pod) []corev1.ContainerStatus {
	var out []corev1.ContainerStatus
	for _, c := range pod.Spec.InitContainers {
		t := *ptrTime(run.StartedAt)
		out = append(out, corev1.ContainerStatus{Name: c.Name, Image: c.Image, ImageID: imageID(c.Image),
			ContainerID: sim.ContainerID(run.UID, c.Name), Ready: true, Started: ptrBool(false),
			State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{
				ExitCode: 0, Reason: "Completed", StartedAt: t, FinishedAt: t, ContainerID: sim.ContainerID(run.UID, c.Name)}}})
	}
	return out
}

func imageID(image string) string { return "sim://" + image }

func ptrBool(b bool) *bool { return &b }

// statusEqual compares statuses as the API server would store them.
func statusEqual(a, b *corev1.PodStatus) bool {
	return apiequality.Semantic.DeepEqual(a, b)
}
