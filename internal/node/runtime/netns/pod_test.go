package netns

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/svcplane/svcplane/internal/node/runtime/sim"
	"github.com/svcplane/svcplane/internal/testutil"
)

// crashingPod runs a pod whose one container exits 1 at once (an unknown
// agnhost subcommand needs no namespace) on a fake clock.
func crashingPod(t *testing.T, policy corev1.RestartPolicy) (*pod, *clocktesting.FakeClock) {
	t.Helper()
	clk := clocktesting.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	r := &Runtime{cfg: Config{Clock: clk}}
	spec := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "crash", UID: types.UID("u")},
		Spec: corev1.PodSpec{RestartPolicy: policy, Containers: []corev1.Container{{Name: "c", Image: agnhostImage, Args: []string{"nosuch"}}}}}
	p := newPod(r, spec, sim.Pod{UID: "u"}, &nodeNet{})
	go p.run()
	t.Cleanup(func() { p.cancel(); <-p.done })
	return p, clk
}

func TestCrashLoopBackOffDoublesFromTenSeconds(t *testing.T) {
	p, clk := crashingPod(t, corev1.RestartPolicyAlways)
	waiting := func(restarts int32, backoff string) {
		t.Helper()
		testutil.Eventually(t, 5*time.Second, "back-off "+backoff, func() bool {
			s := p.state().Containers[0]
			return s.RestartCount == restarts && s.State.Waiting != nil && s.State.Waiting.Reason == "CrashLoopBackOff" &&
				s.State.Waiting.Message == "back-off "+backoff+" restarting failed container=c pod=crash_ns(u)" &&
				s.LastTerminationState.Terminated != nil && s.LastTerminationState.Terminated.ExitCode == 1 &&
				clk.HasWaiters()
		})
	}
	// The first restart is at once; the second waits 10 s, then 20 s, 40 s.
	waiting(1, "10s")
	clk.Step(9 * time.Second)
	if s := p.state().Containers[0]; s.RestartCount != 1 {
		t.Fatalf("restarted before its back-off ended: %d", s.RestartCount)
	}
	clk.Step(time.Second)
	waiting(2, "20s")
	clk.Step(20 * time.Second)
	waiting(3, "40s")
	if s := p.state(); s.Phase != corev1.PodRunning || s.Ready() {
		t.Fatalf("a crash-looping pod is %s, ready %v", s.Phase, s.Ready())
	}
	var logs []string
	for _, l := range func() []logLine { l, _, _ := p.containers[0].log.snapshot(); return l }() {
		logs = append(logs, string(l.data))
	}
	if len(logs) != 2 || logs[0] != "Error: unknown command \"nosuch\" for \"agnhost\"\n" {
		t.Fatalf("the last run's log while backing off: %q", logs)
	}
}

func TestRestartPolicyNeverFailsThePod(t *testing.T) {
	p, _ := crashingPod(t, corev1.RestartPolicyNever)
	testutil.Eventually(t, 5*time.Second, "phase Failed", func() bool { return p.state().Phase == corev1.PodFailed })
	s := p.state().Containers[0]
	if s.RestartCount != 0 || s.State.Terminated == nil || s.State.Terminated.ExitCode != 1 || s.State.Terminated.Reason != "Error" || s.Ready {
		t.Fatalf("container %+v", s)
	}
}
