package agent

import (
	"context"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"

	"github.com/svcplane/svcplane/internal/node/container"
)

// syncPod brings one pod of this agent's nodes to its state: running and
// (after its readiness delay) ready, failed past activeDeadlineSeconds, or
// deleted once its grace period ends. It returns when to look again.
func (a *Agent) syncPod(ctx context.Context, key string) (time.Duration, error) {
	ns, name, _ := cache.SplitMetaNamespaceKey(key)
	pod, err := a.pods.Pods(ns).Get(name)
	if apierrors.IsNotFound(err) {
		return 0, nil // podDeleted killed it
	}
	if err != nil || !a.ours(pod.Spec.NodeName) {
		return 0, err
	}
	pod = a.written.latest(pod)
	now := a.cfg.Clock.Now()
	if pod.DeletionTimestamp != nil {
		return a.syncTerminating(ctx, pod, now)
	}
	if terminal(pod) {
		a.cfg.Runtime.KillPod(pod.UID)
		return 0, nil
	}
	if status, ok := a.endedStatus(pod.UID); ok {
		// The cache lags behind the final status this agent wrote (or
		// failed to write): write it again, never run the pod again.
		err := a.writeStatus(ctx, pod, status)
		if apierrors.IsConflict(err) {
			return 0, nil // the informer brings the newer pod
		}
		return 0, err
	}
	if a.waitForNode(pod.Spec.NodeName, key) {
		return 0, nil
	}
	run, err := a.cfg.Runtime.RunPod(pod)
	if err != nil {
		return 0, err
	}
	var state *container.PodState
	if r, ok := a.cfg.Runtime.(container.Reporter); ok {
		if st, ok := r.PodState(pod.UID); ok {
			state = &st
		}
	}
	status, after := podStatus(pod, run, state, a.hostIPs(pod.Spec.NodeName), now)
	if terminal(&corev1.Pod{Status: status}) {
		a.recordEnded(pod.UID, status)
		a.cfg.Runtime.KillPod(pod.UID)
	}
	if err := a.writeStatus(ctx, pod, status); err != nil {
		return 0, err
	}
	return after, nil
}

// terminationEnd is when a deleted pod stops: the deletion request time
// (deletionTimestamp less the grace period) plus its termination delay,
// capped at deletionTimestamp. A delay that does not parse counts as none.
func terminationEnd(p *corev1.Pod) time.Time {
	end := p.DeletionTimestamp.Time
	var grace time.Duration
	if p.DeletionGracePeriodSeconds != nil {
		grace = time.Duration(*p.DeletionGracePeriodSeconds) * time.Second
	}
	delay, err := time.ParseDuration(p.Annotations[TerminationDelayAnnotation])
	if err != nil || delay < 0 {
		delay = 0
	}
	if start := end.Add(-grace); start.Add(delay).Before(end) {
		return start.Add(delay)
	}
	return end
}

func (a *Agent) recordEnded(uid types.UID, status corev1.PodStatus) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.ended[uid] = status
}

func (a *Agent) endedStatus(uid types.UID) (corev1.PodStatus, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	s, ok := a.ended[uid]
	return s, ok
}

func (a *Agent) forgetEnded(uid types.UID) {
	a.mu.Lock()
	defer a.mu.Unlock()
	delete(a.ended, uid)
}

func terminal(p *corev1.Pod) bool {
	return p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed
}

// waitForNode reports whether the pod (key) must wait until its node is
// handed to the runtime, and records it to be queued again then.
func (a *Agent) waitForNode(node, key string) bool {
	a.mu.Lock()
	if a.handed[node] {
		a.mu.Unlock()
		return false
	}
	if a.waiting[node] == nil {
		a.waiting[node] = map[string]bool{}
	}
	a.waiting[node][key] = true
	a.mu.Unlock()
	// The CIDRs may have arrived between the check and the wait.
	if n, err := a.nodes.Get(node); err == nil && len(n.Spec.PodCIDRs) > 0 {
		a.nodeChanged(n)
	}
	return true
}

// writeStatus updates the pod's status unless it is unchanged; pod is
// the newest copy known (writtenPods.latest), and the server's answer is
// remembered, so that the next write builds on it while the informer lags
// behind.
func (a *Agent) writeStatus(ctx context.Context, pod *corev1.Pod, status corev1.PodStatus) error {
	if statusEqual(&pod.Status, &status) {
		return nil
	}
	p := pod.DeepCopy()
	p.Status = status
	got, err := a.cfg.Client.CoreV1().Pods(p.Namespace).UpdateStatus(ctx, p, metav1.UpdateOptions{})
	if err != nil {
		a.written.forget(pod.UID)
	}
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err == nil {
		a.written.wrote(pod.ResourceVersion, got)
	}
	return err
}

// syncTerminating ends a deleted pod: at once, as a pause container exits
// at SIGTERM, or after its svcplane.io/termination-delay (serving
// meanwhile), never after its grace period (deletionTimestamp); a Stopper
// runtime's containers get SIGTERM then and the pod waits for them, at
// most until deletionTimestamp. Then it kills it and deletes it with
// grace 0, as the kubelet does once its containers have stopped.
func (a *Agent) syncTerminating(ctx context.Context, pod *corev1.Pod, now time.Time) (time.Duration, error) {
	_, running := a.cfg.Runtime.Running(pod.UID)
	if left := terminationEnd(pod).Sub(now); running && left > 0 {
		return left, nil
	}
	if s, ok := a.cfg.Runtime.(Stopper); ok && running && now.Before(pod.DeletionTimestamp.Time) {
		if !s.StopPod(pod.UID, pod.DeletionTimestamp.Time) {
			return pod.DeletionTimestamp.Sub(now), nil
		}
	}
	a.cfg.Runtime.KillPod(pod.UID)
	err := a.cfg.Client.CoreV1().Pods(pod.Namespace).Delete(ctx, pod.Name, metav1.DeleteOptions{
		GracePeriodSeconds: ptr.To[int64](0), Preconditions: metav1.NewUIDPreconditions(string(pod.UID))})
	if apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
		return 0, nil
	}
	return 0, err
}
