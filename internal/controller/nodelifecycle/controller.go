package nodelifecycle

import (
	"context"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	coordinformers "k8s.io/client-go/informers/coordination/v1"
	coreinformers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	coordlisters "k8s.io/client-go/listers/coordination/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	"github.com/svcplane/svcplane/internal/bootstrap/periodic"
	"github.com/svcplane/svcplane/internal/controller/worker"
)

// Config holds the controller's periods (kube-controller-manager's flags).
type Config struct {
	// MonitorPeriod is how often node health is checked (5 s).
	MonitorPeriod time.Duration
	// GracePeriod is how long a node may go without a heartbeat before
	// it is marked Unknown (50 s, kube-controller-manager 1.36's default).
	GracePeriod time.Duration
	// StartupGracePeriod is the same for a node that never posted Ready
	// (60 s).
	StartupGracePeriod time.Duration
}

// Defaults fills unset periods with upstream's defaults.
func (c *Config) Defaults() {
	if c.MonitorPeriod == 0 {
		c.MonitorPeriod = 5 * time.Second
	}
	if c.GracePeriod == 0 {
		c.GracePeriod = 50 * time.Second
	}
	if c.StartupGracePeriod == 0 {
		c.StartupGracePeriod = 60 * time.Second
	}
}

// health is what the controller last observed of a node's heartbeats.
type health struct {
	// probe is when (on the controller's clock) a heartbeat was last seen.
	probe          time.Time
	readyHeartbeat metav1.Time
	leaseRenew     *metav1.MicroTime
}

const podNodeIndex = "nodelifecycle:spec.nodeName"

// Controller marks nodes that stopped heartbeating and taints them.
type Controller struct {
	cfg      Config
	client   kubernetes.Interface
	nodes    corelisters.NodeLister
	leases   coordlisters.LeaseLister
	pods     cache.Indexer
	synced   []cache.InformerSynced
	queue    workqueue.TypedRateLimitingInterface[string]
	recorder record.EventRecorder
	clock    clock.WithTicker
	// events records to the API while Run runs.
	events record.EventBroadcaster
	// health is only touched by the monitor loop.
	health map[string]*health
}

// New returns a controller fed by the given informers.
func New(client kubernetes.Interface, nodes coreinformers.NodeInformer, leases coordinformers.LeaseInformer,
	pods coreinformers.PodInformer, clk clock.WithTicker, cfg Config) *Controller {
	cfg.Defaults()
	b := record.NewBroadcaster()
	_ = pods.Informer().AddIndexers(cache.Indexers{podNodeIndex: func(obj interface{}) ([]string, error) {
		if p, ok := obj.(*corev1.Pod); ok && p.Spec.NodeName != "" {
			return []string{p.Spec.NodeName}, nil
		}
		return nil, nil
	}})
	c := &Controller{cfg: cfg, client: client, nodes: nodes.Lister(), leases: leases.Lister(),
		pods:   pods.Informer().GetIndexer(),
		synced: []cache.InformerSynced{nodes.Informer().HasSynced, leases.Informer().HasSynced, pods.Informer().HasSynced},
		queue:  worker.NewQueue[string]("nodelifecycle"), clock: clk, health: map[string]*health{}, events: b,
		recorder: b.NewRecorder(scheme.Scheme, corev1.EventSource{Component: "node-controller"})}
	enqueue := func(obj interface{}) {
		if n, ok := obj.(*corev1.Node); ok {
			c.queue.Add(n.Name)
		}
	}
	_, _ = nodes.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: enqueue, UpdateFunc: func(_, obj interface{}) { enqueue(obj) },
	})
	_, _ = pods.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: c.podChanged, UpdateFunc: func(_, obj interface{}) { c.podChanged(obj) },
	})
	return c
}

// podChanged queues the node of a Ready pod on a node that is not Ready,
// so the pod is marked not ready too (upstream's processPod).
func (c *Controller) podChanged(obj interface{}) {
	p, ok := obj.(*corev1.Pod)
	if !ok || p.Spec.NodeName == "" || !podReady(p) {
		return
	}
	n, err := c.nodes.Get(p.Spec.NodeName)
	if err != nil {
		return
	}
	if r := condition(n.Status.Conditions, corev1.NodeReady); r != nil && r.Status != corev1.ConditionTrue {
		c.queue.Add(n.Name)
	}
}

func podReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// Run checks node health at once and then every MonitorPeriod (on the
// controller's clock) and runs workers keeping taints and pod readiness in
// step, until ctx ends; then it shuts its event broadcaster down.
func (c *Controller) Run(ctx context.Context, workers int) {
	c.events.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: c.client.CoreV1().Events("")})
	defer c.events.Shutdown()
	go func() {
		if !cache.WaitForNamedCacheSyncWithContext(ctx, c.synced...) {
			return
		}
		if err := c.monitorNodeHealth(ctx); err != nil {
			klog.ErrorS(err, "Monitoring node health")
		}
		periodic.Run(ctx, c.clock, c.cfg.MonitorPeriod, nil, "Monitoring node health", c.monitorNodeHealth)
	}()
	worker.Run(ctx, c.queue, workers, func(ctx context.Context, name string) (time.Duration, error) {
		return 0, c.sync(ctx, name)
	}, c.synced...)
}

// monitorNodeHealth checks every node once.
func (c *Controller) monitorNodeHealth(ctx context.Context) error {
	nodes, err := c.nodes.List(labels.Everything())
	if err != nil {
		return err
	}
	seen := map[string]bool{}
	var firstErr error
	for _, n := range nodes {
		seen[n.Name] = true
		if err := c.tryUpdateNodeHealth(ctx, n); err != nil && firstErr == nil {
			firstErr = err
		}
	}
	for name := range c.health {
		if !seen[name] {
			delete(c.health, name)
		}
	}
	return firstErr
}

var monitoredConditions = []corev1.NodeConditionType{
	corev1.NodeReady, corev1.NodeMemoryPressure, corev1.NodeDiskPressure, corev1.NodePIDPressure,
}

// tryUpdateNodeHealth records a new heartbeat of n, or marks n's
// conditions Unknown when none came within the grace period.
func (c *Controller) tryUpdateNodeHealth(ctx context.Context, n *corev1.Node) error {
	now := c.clock.Now()
	ready := condition(n.Status.Conditions, corev1.NodeReady)
	grace := c.cfg.GracePeriod
	if ready == nil {
		grace = c.cfg.StartupGracePeriod
	}
	h := c.health[n.Name]
	switch {
	case h == nil && ready == nil:
		h = &health{probe: n.CreationTimestamp.Time}
	case h == nil:
		h = &health{probe: now}
	case ready != nil && !ready.LastHeartbeatTime.Equal(&h.readyHeartbeat):
		h.probe = now
	}
	if ready != nil {
		h.readyHeartbeat = ready.LastHeartbeatTime
	}
	if l, err := c.leases.Leases(corev1.NamespaceNodeLease).Get(n.Name); err == nil && l.Spec.RenewTime != nil &&
		(h.leaseRenew == nil || h.leaseRenew.Before(l.Spec.RenewTime)) {
		h.leaseRenew, h.probe = l.Spec.RenewTime.DeepCopy(), now
	}
	c.health[n.Name] = h
	if !now.After(h.probe.Add(grace)) {
		return nil
	}
	updated := n.DeepCopy()
	nowT := metav1.NewTime(now)
	for _, t := range monitoredConditions {
		cond := condition(updated.Status.Conditions, t)
		switch {
		case cond == nil:
			updated.Status.Conditions = append(updated.Status.Conditions, corev1.NodeCondition{Type: t,
				Status: corev1.ConditionUnknown, Reason: "NodeStatusNeverUpdated", Message: "Kubelet never posted node status.",
				LastHeartbeatTime: n.CreationTimestamp, LastTransitionTime: nowT})
		case cond.Status != corev1.ConditionUnknown:
			cond.Status, cond.Reason, cond.Message = corev1.ConditionUnknown, "NodeStatusUnknown", "Kubelet stopped posting node status."
			cond.LastTransitionTime = nowT
		}
	}
	if apiequality.Semantic.DeepEqual(n.Status.Conditions, updated.Status.Conditions) {
		return nil
	}
	klog.InfoS("Node stopped posting status; marking it Unknown", "node", n.Name, "lastHeartbeat", h.probe)
	if _, err := c.client.CoreV1().Nodes().UpdateStatus(ctx, updated, metav1.UpdateOptions{}); err != nil {
		return err
	}
	c.recorder.Eventf(&corev1.ObjectReference{Kind: "Node", Name: n.Name, UID: n.UID}, corev1.EventTypeNormal,
		"NodeNotReady", "Node %s status is now: NodeNotReady", n.Name)
	return nil
}

func condition(conds []corev1.NodeCondition, t corev1.NodeConditionType) *corev1.NodeCondition {
	for i := range conds {
		if conds[i].Type == t {
			return &conds[i]
		}
	}
	return nil
}

// sync keeps one node's taints in step with its Ready condition and, when
// it is not Ready, marks its pods not ready.
func (c *Controller) sync(ctx context.Context, name string) error {
	n, err := c.nodes.Get(name)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	ready := condition(n.Status.Conditions, corev1.NodeReady)
	if ready == nil {
		return nil
	}
	if taints, changed := wantTaints(n.Spec.Taints, ready.Status, metav1.NewTime(c.clock.Now())); changed {
		n = n.DeepCopy()
		n.Spec.Taints = taints
		if n, err = c.client.CoreV1().Nodes().Update(ctx, n, metav1.UpdateOptions{}); err != nil {
			return err
		}
	}
	if ready.Status != corev1.ConditionTrue {
		return c.markPodsNotReady(ctx, n.Name)
	}
	return nil
}
