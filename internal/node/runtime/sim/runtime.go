package sim

import (
	"fmt"
	"net/netip"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/clock"
)

// Pod is what the runtime knows of a running pod.
type Pod struct {
	UID  types.UID
	Node string
	// IPs are the pod's addresses, one per pod CIDR of its node in the
	// node's order (the host's addresses for hostNetwork pods).
	IPs []string
	// StartedAt is when the runtime started the pod's sandbox and
	// containers.
	StartedAt time.Time
}

// ReadyAt is when pod's readiness probes first succeed: StartedAt plus the
// largest initialDelaySeconds of its containers' readinessProbes (at once
// without probes).
func (p Pod) ReadyAt(pod *corev1.Pod) time.Time {
	return p.StartedAt.Add(ReadyDelay(pod))
}

// ReadyDelay is the largest readinessProbe initialDelaySeconds of pod's
// containers.
func ReadyDelay(pod *corev1.Pod) time.Duration {
	var d time.Duration
	for _, c := range pod.Spec.Containers {
		if c.ReadinessProbe != nil {
			d = max(d, time.Duration(c.ReadinessProbe.InitialDelaySeconds)*time.Second)
		}
	}
	return d
}

// ContainerID is the runtime's id of one container of a pod.
func ContainerID(uid types.UID, container string) string {
	return fmt.Sprintf("sim://%s-%s", uid, container)
}

type node struct {
	cidrs   []*cidrAllocator
	hostIPs []string
}

// Runtime runs the pods of many simulated nodes.
type Runtime struct {
	clock clock.PassiveClock
	mu    sync.Mutex
	nodes map[string]*node
	pods  map[types.UID]*Pod
	// stopped is closed when a running pod is killed (Logs -f ends).
	stopped map[types.UID]chan struct{}
	// following counts the Logs calls waiting with Follow.
	following int
}

// New returns an empty runtime that reads time from clk.
func New(clk clock.PassiveClock) *Runtime {
	return &Runtime{clock: clk, nodes: map[string]*node{}, pods: map[types.UID]*Pod{}, stopped: map[types.UID]chan struct{}{}}
}

// SetNode records a node's pod CIDRs (from spec.podCIDRs) and host
// addresses. Pod CIDRs are fixed once set, as the kubelet's are: later
// calls only update the host addresses.
func (r *Runtime) SetNode(name string, podCIDRs, hostIPs []string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := r.nodes[name]
	if n == nil || len(n.cidrs) == 0 {
		n = &node{}
		for _, c := range podCIDRs {
			p, err := netip.ParsePrefix(c)
			if err != nil {
				return fmt.Errorf("node %s: pod CIDR %q: %w", name, c, err)
			}
			a, err := newCIDRAllocator(p)
			if err != nil {
				return fmt.Errorf("node %s: %w", name, err)
			}
			n.cidrs = append(n.cidrs, a)
		}
		r.nodes[name] = n
	}
	n.hostIPs = hostIPs
	return nil
}

// RunPod starts pod on its node (spec.nodeName) unless it already runs,
// and returns its state. It fails when the node has no pod CIDRs yet or
// one of them is full.
func (r *Runtime) RunPod(pod *corev1.Pod) (Pod, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if p, ok := r.pods[pod.UID]; ok {
		return *p, nil
	}
	n := r.nodes[pod.Spec.NodeName]
	if n == nil || len(n.cidrs) == 0 {
		return Pod{}, fmt.Errorf("node %s has no pod CIDRs yet", pod.Spec.NodeName)
	}
	p := &Pod{UID: pod.UID, Node: pod.Spec.NodeName, StartedAt: r.clock.Now()}
	if pod.Spec.HostNetwork {
		p.IPs = append([]string(nil), n.hostIPs...)
	} else {
		for i, a := range n.cidrs {
			ip, err := a.allocate()
			if err != nil {
				for j := 0; j < i; j++ {
					n.cidrs[j].release(netip.MustParseAddr(p.IPs[j]))
				}
				return Pod{}, fmt.Errorf("node %s: %w", pod.Spec.NodeName, err)
			}
			p.IPs = append(p.IPs, ip.String())
		}
	}
	r.pods[pod.UID] = p
	r.stopped[pod.UID] = make(chan struct{})
	return *p, nil
}

// Running returns the state of a running pod.
func (r *Runtime) Running(uid types.UID) (Pod, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	p, ok := r.pods[uid]
	if !ok {
		return Pod{}, false
	}
	return *p, true
}

// KillPod stops a pod and frees its addresses; unknown pods are ignored.
func (r *Runtime) KillPod(uid types.UID) {
	r.mu.Lock()
	defer r.mu.Unlock()
	p, ok := r.pods[uid]
	if !ok {
		return
	}
	delete(r.pods, uid)
	close(r.stopped[uid])
	delete(r.stopped, uid)
	if n := r.nodes[p.Node]; n != nil {
		for _, a := range n.cidrs {
			for _, s := range p.IPs {
				if ip, err := netip.ParseAddr(s); err == nil {
					a.release(ip)
				}
			}
		}
	}
}

// Len is the number of running pods.
func (r *Runtime) Len() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.pods)
}

// Adopt takes over a pod that already runs on its node (its status holds
// IPs and a start time; Running, or Pending with a container that never
// ran, such as one whose image cannot be pulled), as after an agent
// restart: its addresses stay the pod's and are not handed out again. It
// reports whether it did.
func (r *Runtime) Adopt(pod *corev1.Pod) bool {
	if pod.Status.StartTime == nil || len(pod.Status.PodIPs) == 0 ||
		(pod.Status.Phase != corev1.PodRunning && pod.Status.Phase != corev1.PodPending) {
		return false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	n := r.nodes[pod.Spec.NodeName]
	if _, ok := r.pods[pod.UID]; ok || n == nil || len(n.cidrs) == 0 {
		return false
	}
	p := &Pod{UID: pod.UID, Node: pod.Spec.NodeName, StartedAt: pod.Status.StartTime.Time}
	for _, s := range pod.Status.PodIPs {
		p.IPs = append(p.IPs, s.IP)
		if pod.Spec.HostNetwork {
			continue
		}
		ip, err := netip.ParseAddr(s.IP)
		if err != nil {
			continue
		}
		for _, a := range n.cidrs {
			a.take(ip)
		}
	}
	r.pods[pod.UID] = p
	r.stopped[pod.UID] = make(chan struct{})
	return true
}
