package agent

import (
	"context"
	"fmt"
	"hash/fnv"
	goruntime "runtime"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The kubelet's node condition reasons and messages.
var nodeConditions = []struct {
	typ              corev1.NodeConditionType
	status           corev1.ConditionStatus
	reason, message  string
	transitionReason string
}{
	{corev1.NodeMemoryPressure, corev1.ConditionFalse, "KubeletHasSufficientMemory", "kubelet has sufficient memory available", "NodeHasSufficientMemory"},
	{corev1.NodeDiskPressure, corev1.ConditionFalse, "KubeletHasNoDiskPressure", "kubelet has no disk pressure", "NodeHasNoDiskPressure"},
	{corev1.NodePIDPressure, corev1.ConditionFalse, "KubeletHasSufficientPID", "kubelet has sufficient PID available", "NodeHasSufficientPID"},
	{corev1.NodeReady, corev1.ConditionTrue, "KubeletReady", "kubelet is posting ready status", "NodeReady"},
}

func (a *Agent) hostIPs(name string) []string {
	if len(a.cfg.InternalIPs) == 0 {
		return nil
	}
	return []string{a.cfg.InternalIPs[a.index[name]]}
}

// labels are the labels the agent keeps on a node.
func (a *Agent) labels(name string) map[string]string {
	l := map[string]string{
		corev1.LabelHostname: name,
		corev1.LabelOSStable: goruntime.GOOS, corev1.LabelArchStable: goruntime.GOARCH,
		"beta.kubernetes.io/os": goruntime.GOOS, "beta.kubernetes.io/arch": goruntime.GOARCH,
	}
	if len(a.cfg.Zones) > 0 {
		l[corev1.LabelTopologyZone] = a.cfg.Zones[a.index[name]%len(a.cfg.Zones)]
	}
	for k, v := range a.cfg.Labels {
		l[k] = v
	}
	return l
}

// ensureNode returns the node, registering it (or adding missing labels)
// first when needed.
func (a *Agent) ensureNode(ctx context.Context, name string) (*corev1.Node, error) {
	nodes := a.cfg.HeartbeatClient.CoreV1().Nodes()
	n, err := a.nodes.Get(name)
	if apierrors.IsNotFound(err) {
		n = &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: a.labels(name),
			Annotations: map[string]string{"node.alpha.kubernetes.io/ttl": "0",
				"volumes.kubernetes.io/controller-managed-attach-detach": "true"}}}
		for k, v := range a.wantAnnotations(name) {
			n.Annotations[k] = v
		}
		n.Status = a.nodeStatus(n)
		created, err := nodes.Create(ctx, n, metav1.CreateOptions{})
		if err == nil {
			a.recorder.Eventf(nodeRef(created), corev1.EventTypeNormal, "NodeReady", "Node %s status is now: NodeReady", name)
			return created, nil
		}
		if !apierrors.IsAlreadyExists(err) {
			return nil, err
		}
		return nodes.Get(ctx, name, metav1.GetOptions{})
	}
	if err != nil {
		return nil, err
	}
	want, wantAnn := a.labels(name), a.wantAnnotations(name)
	missing := false
	for k, v := range want {
		if n.Labels[k] != v {
			missing = true
		}
	}
	for k, v := range wantAnn {
		if n.Annotations[k] != v {
			missing = true
		}
	}
	stale := a.staleAnnotations(n)
	if !missing && len(stale) == 0 {
		return n, nil
	}
	n = n.DeepCopy()
	if n.Labels == nil {
		n.Labels = map[string]string{}
	}
	for k, v := range want {
		n.Labels[k] = v
	}
	if n.Annotations == nil && len(wantAnn) > 0 {
		n.Annotations = map[string]string{}
	}
	for k, v := range wantAnn {
		n.Annotations[k] = v
	}
	for _, k := range stale {
		delete(n.Annotations, k)
	}
	return nodes.Update(ctx, n, metav1.UpdateOptions{})
}

func nodeRef(n *corev1.Node) *corev1.ObjectReference {
	return &corev1.ObjectReference{Kind: "Node", Name: n.Name, UID: n.UID}
}

// nodeStatus is the status the agent posts for n now: conditions keep their
// transition time while unchanged and get a fresh heartbeat.
func (a *Agent) nodeStatus(n *corev1.Node) corev1.NodeStatus {
	now := metav1.NewTime(a.cfg.Clock.Now().Truncate(time.Second))
	s := *n.Status.DeepCopy()
	res := corev1.ResourceList{
		corev1.ResourceCPU: a.cfg.CPU, corev1.ResourceMemory: a.cfg.Memory,
		corev1.ResourcePods:             *resource.NewQuantity(a.cfg.MaxPods, resource.DecimalSI),
		corev1.ResourceEphemeralStorage: resource.MustParse("100Gi"),
	}
	s.Capacity, s.Allocatable = res, res.DeepCopy()
	s.Addresses = nil
	for _, ip := range a.hostIPs(n.Name) {
		s.Addresses = append(s.Addresses, corev1.NodeAddress{Type: corev1.NodeInternalIP, Address: ip})
	}
	s.Addresses = append(s.Addresses, corev1.NodeAddress{Type: corev1.NodeHostName, Address: n.Name})
	_, s.DaemonEndpoints.KubeletEndpoint.Port = a.kubeletEndpoint(n.Name)
	s.DeclaredFeatures = a.declaredFeatures()
	id := nodeID(n.Name)
	s.NodeInfo = corev1.NodeSystemInfo{MachineID: id, SystemUUID: id, BootID: id,
		KernelVersion: a.cfg.RuntimeName, OSImage: "svcplane " + a.cfg.RuntimeName + " node", ContainerRuntimeVersion: a.cfg.RuntimeName + "://" + a.cfg.Version,
		KubeletVersion: a.cfg.Version, OperatingSystem: goruntime.GOOS, Architecture: goruntime.GOARCH}
	var conds []corev1.NodeCondition
	for _, want := range nodeConditions {
		c := corev1.NodeCondition{Type: want.typ, Status: want.status, Reason: want.reason, Message: want.message,
			LastHeartbeatTime: now, LastTransitionTime: now}
		if old := condition(n.Status.Conditions, want.typ); old != nil && old.Status == want.status {
			c.LastTransitionTime = old.LastTransitionTime
		}
		conds = append(conds, c)
	}
	s.Conditions = conds
	return s
}

func nodeID(name string) string {
	h := fnv.New128a()
	_, _ = h.Write([]byte(name))
	return fmt.Sprintf("%x", h.Sum(nil))
}

func condition(conds []corev1.NodeCondition, t corev1.NodeConditionType) *corev1.NodeCondition {
	for i := range conds {
		if conds[i].Type == t {
			return &conds[i]
		}
	}
	return nil
}

// statusStale reports whether n's status differs from what the agent
// would post (apart from heartbeat times), or its Ready heartbeat is older
// than NodeStatusReportFrequency.
func (a *Agent) statusStale(n *corev1.Node) bool {
	ready := condition(n.Status.Conditions, corev1.NodeReady)
	if ready == nil || a.cfg.Clock.Since(ready.LastHeartbeatTime.Time) >= a.cfg.NodeStatusReportFrequency {
		return true
	}
	want := a.nodeStatus(n)
	got := n.Status.DeepCopy()
	for i := range got.Conditions {
		if c := condition(want.Conditions, got.Conditions[i].Type); c != nil {
			got.Conditions[i].LastHeartbeatTime = c.LastHeartbeatTime
		}
	}
	return !apiequality.Semantic.DeepEqual(&want, got)
}

// nodeStatusUpdateRetry is how often a status write is tried before the
// heartbeat fails (the kubelet's value); tries after a conflict read the
// node from the API server.
const nodeStatusUpdateRetry = 5

// syncNodeStatus posts n's status when it is stale.
func (a *Agent) syncNodeStatus(ctx context.Context, n *corev1.Node) error {
	var err error
	for i := 0; i < nodeStatusUpdateRetry; i++ {
		if i > 0 {
			if n, err = a.cfg.HeartbeatClient.CoreV1().Nodes().Get(ctx, n.Name, metav1.GetOptions{}); err != nil {
				return err
			}
		}
		if err = a.tryUpdateNodeStatus(ctx, n); err == nil || !apierrors.IsConflict(err) {
			return err
		}
	}
	return err
}

func (a *Agent) tryUpdateNodeStatus(ctx context.Context, n *corev1.Node) error {
	if !a.statusStale(n) {
		return nil
	}
	wasReady := false
	if c := condition(n.Status.Conditions, corev1.NodeReady); c != nil && c.Status == corev1.ConditionTrue {
		wasReady = true
	}
	n = n.DeepCopy()
	n.Status = a.nodeStatus(n)
	updated, err := a.cfg.HeartbeatClient.CoreV1().Nodes().UpdateStatus(ctx, n, metav1.UpdateOptions{})
	if err != nil {
		return err
	}
	if !wasReady {
		a.recorder.Eventf(nodeRef(updated), corev1.EventTypeNormal, "NodeReady", "Node %s status is now: NodeReady", n.Name)
	}
	return nil
}
