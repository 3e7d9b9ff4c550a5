package netns

import (
	"context"
	"fmt"
	"os"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/vishvananda/netns"

	"github.com/svcplane/svcplane/internal/node/container"
	"github.com/svcplane/svcplane/internal/node/runtime/sim"
)

// The kubelet's container restart back-off: 10 s doubling to 5 min, reset
// after a container ran 10 min.
const (
	backoffInitial = 10 * time.Second
	backoffMax     = 5 * time.Minute
	backoffReset   = 10 * time.Minute
)

// pod is one running pod: its namespace and containers.
type pod struct {
	r        *Runtime
	spec     *corev1.Pod
	rec      sim.Pod
	node     *nodeNet
	net      *podNet        // nil for hostNetwork pods
	ns       netns.NsHandle // the pod's namespace (the node's for hostNetwork)
	hostname string
	// resolvConf is the pod's resolv.conf file ("": the host's).
	resolvConf string
	// emptyDirs are the host directories of its emptyDir volumes by
	// name; mountDirs, the directories made on the host for its
	// containers' mount paths (released at stop).
	emptyDirs map[string]string
	mountDirs []string

	// ctx ends the pod at once (SIGKILL); term, its child, asks the
	// containers to end (SIGTERM) at deletion.
	ctx        context.Context
	cancel     context.CancelFunc
	term       context.Context
	termCancel context.CancelFunc
	done       chan struct{}

	mu         sync.Mutex
	inits      []*ctr
	containers []*ctr
	phase      corev1.PodPhase
}

// ctr is one container of a pod and its current and last run.
type ctr struct {
	spec     corev1.Container
	init     bool
	restarts int32
	state    corev1.ContainerState
	last     corev1.ContainerState
	ready    bool // readiness probe (true without one, once running)
	started  bool
	log      *logBuf
	prevLog  *logBuf
	// kill ends the current run (a failed liveness probe).
	kill context.CancelFunc
}

func newPod(r *Runtime, spec *corev1.Pod, rec sim.Pod, node *nodeNet) *pod {
	ctx, cancel := context.WithCancel(context.Background())
	p := &pod{r: r, spec: spec.DeepCopy(), rec: rec, node: node, ns: node.ns, ctx: ctx, cancel: cancel,
		done: make(chan struct{}), phase: corev1.PodRunning}
	p.term, p.termCancel = context.WithCancel(ctx)
	// The downward API sees the addresses the pod has now, as the
	// kubelet fills them from the sandbox before its status is written.
	p.spec.Status.PodIP, p.spec.Status.PodIPs = "", nil
	for i, ip := range rec.IPs {
		if i == 0 {
			p.spec.Status.PodIP = ip
		}
		p.spec.Status.PodIPs = append(p.spec.Status.PodIPs, corev1.PodIP{IP: ip})
	}
	if node.ip.IsValid() {
		p.spec.Status.HostIP, p.spec.Status.HostIPs = node.ip.String(), []corev1.HostIP{{IP: node.ip.String()}}
	}
	p.hostname = spec.Name
	if spec.Spec.Hostname != "" {
		p.hostname = spec.Spec.Hostname
	}
	if len(p.hostname) > 63 {
		p.hostname = p.hostname[:63]
	}
	// The kubelet's default waiting reason of a container not created
	// yet: PodInitializing in a pod with init containers.
	waiting := "ContainerCreating"
	if len(spec.Spec.InitContainers) > 0 {
		waiting = "PodInitializing"
	}
	for _, c := range spec.Spec.InitContainers {
		p.inits = append(p.inits, &ctr{spec: c, init: true, log: newLogBuf(r.cfg.Clock),
			state: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: waiting}}})
	}
	for _, c := range spec.Spec.Containers {
		p.containers = append(p.containers, &ctr{spec: c, log: newLogBuf(r.cfg.Clock),
			state: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: waiting}}})
	}
	return p
}

// restore carries restart counts over from the statuses an adopted pod
// had; its init containers count as done.
func (p *pod) restore(old []corev1.ContainerStatus) {
	if old == nil {
		return
	}
	for _, c := range p.containers {
		for _, o := range old {
			if o.Name == c.spec.Name {
				c.restarts, c.last = o.RestartCount, o.LastTerminationState
			}
		}
	}
	for _, c := range p.inits {
		now := metav1.NewTime(p.r.cfg.Clock.Now())
		c.state = corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{Reason: "Completed", StartedAt: now, FinishedAt: now}}
	}
}

func (p *pod) key() string { return p.spec.Namespace + "/" + p.spec.Name }

func (p *pod) changed() { p.r.changed(p.spec.Namespace, p.spec.Name) }

func (p *pod) containerID(c *ctr) string {
	return fmt.Sprintf("netns://%s-%s", p.spec.UID, c.spec.Name)
}

// run runs the init containers in order, then the containers, until they
// end for good or the pod stops.
func (p *pod) run() {
	defer close(p.done)
	for _, c := range p.inits {
		if c.state.Terminated != nil && c.state.Terminated.ExitCode == 0 {
			continue
		}
		if !p.runContainer(c) {
			return
		}
	}
	var wg sync.WaitGroup
	for _, c := range p.containers {
		wg.Add(1)
		go func() { defer wg.Done(); p.runContainer(c) }()
	}
	wg.Wait()
	if p.term.Err() != nil {
		p.changed() // stopped: the agent may delete it now
		return
	}
	p.mu.Lock()
	p.phase = corev1.PodSucceeded
	for _, c := range p.containers {
		if t := c.state.Terminated; t == nil || t.ExitCode != 0 {
			p.phase = corev1.PodFailed
		}
	}
	p.mu.Unlock()
	p.changed()
}

// restarts reports whether a container that exited with code restarts
// under the pod's restartPolicy (init containers: until they succeed,
// except under Never).
func restarts(policy corev1.RestartPolicy, code int32) bool {
	switch policy {
	case corev1.RestartPolicyNever:
		return false
	case corev1.RestartPolicyOnFailure:
		return code != 0
	}
	return true
}

// runContainer runs c until it ends for good (true: it succeeded or
// need not run again) or the pod stops (false).
func (p *pod) runContainer(c *ctr) bool {
	if p.r.unpullable(c.spec.Image) {
		return p.pullBackOff(c)
	}
	backoff, backedOff := backoffInitial, false
	for {
		started := p.r.cfg.Clock.Now()
		code := p.runOnce(c)
		if p.term.Err() != nil {
			return false
		}
		finished := p.r.cfg.Clock.Now()
		policy := p.spec.Spec.RestartPolicy
		if c.init && code == 0 {
			return true
		}
		if c.init && policy == corev1.RestartPolicyAlways {
			policy = corev1.RestartPolicyOnFailure
		}
		again := restarts(policy, code)
		if !again {
			if c.init {
				p.mu.Lock()
				p.phase = corev1.PodFailed
				p.mu.Unlock()
				p.changed()
				return false
			}
			return code == 0
		}
		if finished.Sub(started) > backoffReset {
			backoff, backedOff = backoffInitial, false
		}
		// As the kubelet: the first restart is at once, later ones wait
		// in CrashLoopBackOff (10 s doubling to 5 min); meanwhile the
		// last run's state and log stay the container's.
		if backedOff {
			p.mu.Lock()
			c.last = c.state
			c.state = corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff",
				Message: fmt.Sprintf("back-off %s restarting failed container=%s pod=%s_%s(%s)",
					backoff, c.spec.Name, p.spec.Name, p.spec.Namespace, p.spec.UID)}}
			p.mu.Unlock()
			p.changed()
			select {
			case <-p.term.Done():
				return false
			case <-p.r.cfg.Clock.After(backoff):
			}
			backoff = min(2*backoff, backoffMax)
		} else {
			p.mu.Lock()
			c.last = c.state
			p.mu.Unlock()
		}
		backedOff = true
		p.mu.Lock()
		c.prevLog, c.log = c.log, newLogBuf(p.r.cfg.Clock)
		c.restarts++
		p.mu.Unlock()
	}
}

// runOnce starts c's program and waits for it; the container's state
// follows.
func (p *pod) runOnce(c *ctr) int32 {
	ctx, kill := context.WithCancel(p.term)
	defer kill()
	now := metav1.NewTime(p.r.cfg.Clock.Now())
	prog, startErr := p.program(c)
	if startErr != nil {
		// As a runtime that could not start the process says it.
		t := &corev1.ContainerStateTerminated{ExitCode: 128, Reason: "StartError", Message: startErr.Error(),
			StartedAt: metav1.Time{}, FinishedAt: now, ContainerID: p.containerID(c)}
		fmt.Fprintln(c.log, startErr.Error())
		p.mu.Lock()
		c.state, c.ready, c.started = corev1.ContainerState{Terminated: t}, false, false
		p.mu.Unlock()
		p.changed()
		c.log.close()
		return t.ExitCode
	}
	p.mu.Lock()
	c.state = corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: now}}
	c.started, c.kill = c.spec.StartupProbe == nil, kill
	c.ready = c.spec.ReadinessProbe == nil
	logw := c.log
	p.mu.Unlock()
	p.changed()
	probes := p.startProbes(ctx, c, kill)
	code := prog(ctx, &procIO{pod: p, ctr: c, stdout: logw, stderr: logw})
	if ctx.Err() != nil && p.term.Err() == nil {
		// Killed (a failed probe), as SIGKILL ends a process: 137 whatever
		// the program returned on its way out (netexec killed while it
		// still binds its ports returns 1).
		code = 137
	}
	kill()
	logw.close()
	probes.Wait()
	reason := "Completed"
	if code != 0 {
		reason = "Error"
	}
	t := &corev1.ContainerStateTerminated{ExitCode: int32(code), Reason: reason, StartedAt: now,
		FinishedAt: metav1.NewTime(p.r.cfg.Clock.Now()), ContainerID: p.containerID(c)}
	p.mu.Lock()
	c.state, c.ready, c.kill = corev1.ContainerState{Terminated: t}, false, nil
	p.mu.Unlock()
	p.changed()
	return t.ExitCode
}

// terminate asks the containers to end (SIGTERM) and kills what is left
// at deadline; it reports whether all have ended.
func (p *pod) terminate(deadline time.Time) bool {
	if p.term.Err() == nil {
		p.termCancel()
		if d := deadline.Sub(p.r.cfg.Clock.Now()); d > 0 {
			t := p.r.cfg.Clock.NewTimer(d)
			go func() {
				select {
				case <-t.C():
					p.cancel()
				case <-p.done:
					t.Stop()
				}
			}()
		} else {
			p.cancel()
		}
	}
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// stop ends the containers and removes the pod's namespace.
func (p *pod) stop() {
	p.cancel()
	<-p.done
	if p.net != nil {
		p.net.remove(p.node)
	}
	if p.resolvConf != "" {
		_ = os.Remove(p.resolvConf)
	}
	p.releaseVolumes()
}

// state is what the agent writes for the pod.
func (p *pod) state() container.PodState {
	p.mu.Lock()
	defer p.mu.Unlock()
	s := container.PodState{Phase: p.phase}
	status := func(c *ctr) corev1.ContainerStatus {
		cs := corev1.ContainerStatus{Name: c.spec.Name, Image: c.spec.Image, ImageID: imageID(c.spec.Image),
			ContainerID: p.containerID(c), RestartCount: c.restarts, State: *c.state.DeepCopy(),
			LastTerminationState: *c.last.DeepCopy()}
		running := c.state.Running != nil
		cs.Ready = running && c.started && c.ready
		if c.init {
			cs.Ready = c.state.Terminated != nil && c.state.Terminated.ExitCode == 0
		}
		started := running && c.started
		cs.Started = &started
		return cs
	}
	for _, c := range p.inits {
		s.InitContainers = append(s.InitContainers, status(c))
	}
	for _, c := range p.containers {
		s.Containers = append(s.Containers, status(c))
	}
	if s.Phase == corev1.PodRunning && container.Pending(s) {
		s.Phase = corev1.PodPending
	}
	return s
}

func imageID(image string) string { return "netns://" + image }
