package agent

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/svcplane/svcplane/internal/kubeletclient"
	"github.com/svcplane/svcplane/internal/node/container"
	"github.com/svcplane/svcplane/internal/node/kubelet"
)

// newKubeletAPI builds the kubelet API of the agent's nodes from
// cfg.KubeletAPI (nil: none), on the agent's pods and runtime.
func (a *Agent) newKubeletAPI() error {
	if a.cfg.KubeletAPI == nil {
		return nil
	}
	kc := *a.cfg.KubeletAPI
	kc.Nodes, kc.Lookup, kc.Pods, kc.NodeAddresses = a.cfg.Names, a.kubeletPod, a.kubeletPods, a.hostIPs
	s, err := kubelet.New(kc)
	if err != nil {
		return err
	}
	a.kubelet = s
	return nil
}

// streams is the runtime's container.Streams.
func (a *Agent) streams() container.Streams { return a.cfg.Runtime }

// kubeletPod finds a pod the runtime runs on one of the agent's nodes.
func (a *Agent) kubeletPod(namespace, name string) (kubelet.Target, bool) {
	p, err := a.pods.Pods(namespace).Get(name)
	if err != nil || !a.ours(p.Spec.NodeName) {
		return kubelet.Target{}, false
	}
	// A pod that ended (terminal phase) is still found: its logs stay
	// readable until it is deleted, as the kubelet's; exec and
	// port-forward into it fail in the runtime (container not found).
	if _, running := a.cfg.Runtime.Running(p.UID); !running && !terminal(p) {
		return kubelet.Target{}, false
	}
	return kubelet.Target{Pod: p, UID: p.UID, Node: p.Spec.NodeName, Streams: a.streams()}, true
}

// kubeletPods are the pods bound to node (the kubelet's /pods).
func (a *Agent) kubeletPods(node string) []*corev1.Pod {
	objs, _ := a.podIndex.ByIndex(podNodeIndex, node)
	out := make([]*corev1.Pod, 0, len(objs))
	for _, o := range objs {
		out = append(out, o.(*corev1.Pod))
	}
	return out
}

// kubeletEndpoint is where node's kubelet API is reached: its port for
// status.daemonEndpoints (the kubelet's 10250 without a kubelet API) and
// the host for kubeletclient.AddressAnnotation ("": the node's own
// addresses).
func (a *Agent) kubeletEndpoint(node string) (host string, port int32) {
	if a.kubelet != nil {
		if ep, ok := a.kubelet.Endpoint(node); ok {
			return ep.Host, ep.Port
		}
	}
	return "", kubelet.DefaultPort
}

// wantAnnotations are the annotations the agent keeps on node.
func (a *Agent) wantAnnotations(node string) map[string]string {
	host, _ := a.kubeletEndpoint(node)
	if host == "" {
		return nil
	}
	return map[string]string{kubeletclient.AddressAnnotation: host}
}

// staleAnnotations are annotations of n the agent no longer wants: the
// kubelet address of an earlier run when the node is now reached at its
// own address (or serves no kubelet API).
func (a *Agent) staleAnnotations(n *corev1.Node) []string {
	if host, _ := a.kubeletEndpoint(n.Name); host == "" {
		if _, ok := n.Annotations[kubeletclient.AddressAnnotation]; ok {
			return []string{kubeletclient.AddressAnnotation}
		}
	}
	return nil
}

// declaredFeatures are the node's status.declaredFeatures: the kubelet
// API serves kubectl's WebSocket protocols itself, as a 1.36 kubelet.
func (a *Agent) declaredFeatures() []string {
	if a.kubelet == nil {
		return nil
	}
	return []string{kubeletclient.ExtendWebSocketsToKubelet}
}
