package agent

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/svcplane/svcplane/internal/node/container"
	"github.com/svcplane/svcplane/internal/node/runtime/sim"
)

// Runtime runs the pods of the agent's nodes: runtime/sim (addresses
// only) or runtime/netns (network namespaces and in-process or host
// containers). sim.Pod is the record every runtime returns. A runtime
// whose containers run on their own also implements container.Reporter;
// the agent then writes the container statuses it reports. Every runtime
// answers the kubelet API's logs, exec and port-forward (container.Streams;
// sim refuses exec and port-forward: it runs no process).
type Runtime interface {
	container.Streams
	// SetNode records a node's pod CIDRs and host addresses; the pod
	// CIDRs are fixed once set.
	SetNode(name string, podCIDRs, hostIPs []string) error
	// RunPod starts pod on spec.nodeName unless it runs already.
	RunPod(pod *corev1.Pod) (sim.Pod, error)
	// Running returns a running pod's record.
	Running(uid types.UID) (sim.Pod, bool)
	// KillPod stops a pod and frees what it held; unknown pods are ignored.
	KillPod(uid types.UID)
	// Adopt takes over a pod that runs already by its status (after an
	// agent restart), keeping its addresses.
	Adopt(pod *corev1.Pod) bool
	// Len is the number of running pods.
	Len() int
}

// Stopper is a Runtime whose containers end as the kubelet ends them at
// deletion: StopPod sends them SIGTERM (once) and SIGKILL at deadline
// (the pod's deletionTimestamp), and reports whether all have ended; the
// agent deletes the pod only then (it looks again when the runtime
// reports a change, or at the deadline).
type Stopper interface {
	StopPod(uid types.UID, deadline time.Time) (stopped bool)
}

var _ Runtime = (*sim.Runtime)(nil)

// Forgetter is a Runtime that keeps something of an ended pod (its
// containers' logs, served until the pod is deleted, as the kubelet does);
// Forget drops it when the pod is deleted.
type Forgetter interface {
	Forget(uid types.UID)
}
