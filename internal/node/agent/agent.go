package agent

import (
	"context"
	"io"
	"sync"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/types"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/scheme"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"

	"github.com/svcplane/svcplane/internal/informerutil"
	"github.com/svcplane/svcplane/internal/node/container"
	"github.com/svcplane/svcplane/internal/node/kubelet"
)

// Agent runs the nodes of one Config.
type Agent struct {
	cfg   Config
	index map[string]int // node name → position in cfg.Names

	informers   informers.SharedInformerFactory
	nodeFactory informers.SharedInformerFactory
	nodes       corelisters.NodeLister
	pods        corelisters.PodLister
	podIndex    cache.Indexer
	// podsSynced gates handing a node to the runtime: its running pods
	// are adopted first, so their addresses are never handed out again.
	podsSynced cache.InformerSynced
	synced     []cache.InformerSynced
	recorder   record.EventRecorder
	// events records to the API while Run runs.
	events record.EventBroadcaster

	podQueue workqueue.TypedRateLimitingInterface[string]
	hbQueue  workqueue.TypedRateLimitingInterface[string]

	mu sync.Mutex
	// leases are the last Lease written per node.
	leases map[string]*coordinationv1.Lease
	// beats counts heartbeats per node (the first reschedule spreads them).
	beats map[string]int
	// waiting are pods (keys) per node that wait for its pod CIDRs.
	waiting map[string]map[string]bool
	// handed are the nodes the runtime has, with their running pods
	// adopted: only then may a pod start there, or a new pod could take
	// the address of one not yet adopted.
	handed map[string]bool
	// handing are the nodes being handed to the runtime now.
	handing map[string]bool
	// ended are the final statuses of pods that reached Succeeded or
	// Failed here, until the pod is deleted: a pod never runs again once
	// it has ended, even when a sync reads it from a cache that has not
	// seen its final status yet (as the kubelet keeps terminal pods).
	ended map[types.UID]corev1.PodStatus
	// written is what this agent's own status writes returned.
	written *writtenPods

	// kubelet serves the nodes' kubelet API (nil: none).
	kubelet *kubelet.Server
}

// New builds an agent; Run starts it.
func New(cfg Config) (*Agent, error) {
	cfg.Defaults()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	a := &Agent{cfg: cfg, index: map[string]int{}, leases: map[string]*coordinationv1.Lease{},
		beats: map[string]int{}, waiting: map[string]map[string]bool{}, handed: map[string]bool{},
		handing: map[string]bool{},
		ended:   map[types.UID]corev1.PodStatus{}, written: newWrittenPods()}
	for i, n := range cfg.Names {
		a.index[n] = i
	}
	selector := "spec.nodeName!="
	if len(cfg.Names) == 1 {
		selector = "spec.nodeName=" + cfg.Names[0]
	}
	a.informers = informers.NewSharedInformerFactoryWithOptions(cfg.WatchClient, 0,
		informers.WithTweakListOptions(func(o *metav1.ListOptions) {
			if o.FieldSelector == "" {
				o.FieldSelector = selector
			}
		}))
	// Nodes are listed unfiltered (the selector above is for pods only),
	// except a single node's own, which is all a node identity may read
	// under the Node authorizer (as are its pods, spec.nodeName=<name>).
	var nodeOpts []informers.SharedInformerOption
	if len(cfg.Names) == 1 {
		own := fields.OneTermEqualSelector("metadata.name", cfg.Names[0]).String()
		nodeOpts = append(nodeOpts, informers.WithTweakListOptions(func(o *metav1.ListOptions) { o.FieldSelector = own }))
	}
	nodeFactory := informers.NewSharedInformerFactoryWithOptions(cfg.WatchClient, 0, nodeOpts...)
	podInf := a.informers.Core().V1().Pods().Informer()
	nodeInf := nodeFactory.Core().V1().Nodes().Informer()
	// Sibling pods share what they hold in common (ShareSiblings): the
	// agent reads its pods and writes only copies of them.
	_ = podInf.SetTransform(informerutil.ShareSiblings(informerutil.DropManagedFields))
	_ = podInf.AddIndexers(cache.Indexers{podNodeIndex: func(obj interface{}) ([]string, error) {
		return []string{obj.(*corev1.Pod).Spec.NodeName}, nil
	}})
	a.podIndex, a.podsSynced = podInf.GetIndexer(), podInf.HasSynced
	_ = nodeInf.SetTransform(informerutil.DropManagedFields)
	a.pods, a.nodes = a.informers.Core().V1().Pods().Lister(), nodeFactory.Core().V1().Nodes().Lister()
	a.synced = []cache.InformerSynced{podInf.HasSynced, nodeInf.HasSynced}
	a.nodeFactory = nodeFactory

	a.podQueue = workqueue.NewTypedRateLimitingQueueWithConfig(
		workqueue.NewTypedMaxOfRateLimiter(
			workqueue.NewTypedItemExponentialFailureRateLimiter[string](50*time.Millisecond, 30*time.Second)),
		workqueue.TypedRateLimitingQueueConfig[string]{Name: "node-agent-pods", Clock: cfg.Clock})
	a.hbQueue = workqueue.NewTypedRateLimitingQueueWithConfig(
		workqueue.NewTypedItemExponentialFailureRateLimiter[string](200*time.Millisecond, max(cfg.RenewInterval()/2, 200*time.Millisecond)),
		workqueue.TypedRateLimitingQueueConfig[string]{Name: "node-agent-heartbeats", Clock: cfg.Clock})

	if err := a.newKubeletAPI(); err != nil {
		return nil, err
	}
	if r, ok := cfg.Runtime.(container.Reporter); ok {
		r.SetOnChange(func(namespace, name string) { a.podQueue.Add(namespace + "/" + name) })
	}
	b := record.NewBroadcaster()
	a.events, a.recorder = b, b.NewRecorder(scheme.Scheme, corev1.EventSource{Component: "kubelet"})

	_, _ = podInf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: a.podChanged,
		UpdateFunc: func(old, obj interface{}) {
			if old.(*corev1.Pod).ResourceVersion != obj.(*corev1.Pod).ResourceVersion {
				a.podChanged(obj)
			}
		},
		DeleteFunc: a.podDeleted,
	})
	_, _ = nodeInf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    a.nodeChanged,
		UpdateFunc: func(_, obj interface{}) { a.nodeChanged(obj) },
	})
	return a, nil
}

func (a *Agent) ours(node string) bool {
	_, ok := a.index[node]
	return ok
}

func (a *Agent) podChanged(obj interface{}) {
	p := obj.(*corev1.Pod)
	if a.ours(p.Spec.NodeName) {
		a.podQueue.Add(p.Namespace + "/" + p.Name)
	}
}

func (a *Agent) podDeleted(obj interface{}) {
	if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = t.Obj
	}
	if p, ok := obj.(*corev1.Pod); ok && a.ours(p.Spec.NodeName) {
		a.forgetEnded(p.UID)
		a.written.forget(p.UID)
		a.cfg.Runtime.KillPod(p.UID)
		if f, ok := a.cfg.Runtime.(Forgetter); ok {
			f.Forget(p.UID)
		}
	}
}

// nodeChanged hands the runtime a node's pod CIDRs once it has them and
// starts the pods that waited for them; a node whose status the API
// server changed (the node lifecycle controller) gets a heartbeat at once.
func (a *Agent) nodeChanged(obj interface{}) {
	n := obj.(*corev1.Node)
	if !a.ours(n.Name) {
		return
	}
	if len(n.Spec.PodCIDRs) > 0 && !a.nodeHanded(n.Name) && a.podsSynced() {
		a.handNode(n)
	}
	if a.statusStale(n) {
		a.hbQueue.Add(n.Name)
	}
}

// handNode gives the runtime node's pod CIDRs, adopts the pods that ran
// there before a restart, and only then lets the waiting pods start.
func (a *Agent) handNode(n *corev1.Node) {
	a.mu.Lock()
	if a.handed[n.Name] || a.handing[n.Name] {
		a.mu.Unlock()
		return // a pod waiting meanwhile is queued by the one handing it
	}
	a.handing[n.Name] = true
	a.mu.Unlock()
	err := a.cfg.Runtime.SetNode(n.Name, n.Spec.PodCIDRs, a.hostIPs(n.Name))
	if err != nil {
		klog.ErrorS(err, "Bad pod CIDRs", "node", n.Name)
	} else {
		a.adoptPods(n.Name)
	}
	a.mu.Lock()
	delete(a.handing, n.Name)
	if err != nil {
		a.mu.Unlock()
		return
	}
	a.handed[n.Name] = true
	keys := a.waiting[n.Name]
	delete(a.waiting, n.Name)
	a.mu.Unlock()
	for k := range keys {
		a.podQueue.Add(k)
	}
}

func (a *Agent) nodeHanded(name string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.handed[name]
}

const podNodeIndex = "spec.nodeName"

// adoptPods hands the runtime the pods already running on node (the agent
// restarted), so they keep their addresses.
func (a *Agent) adoptPods(node string) {
	objs, _ := a.podIndex.ByIndex(podNodeIndex, node)
	adopted := 0
	for _, obj := range objs {
		if p := obj.(*corev1.Pod); p.DeletionTimestamp == nil && a.cfg.Runtime.Adopt(p) {
			adopted++
		}
	}
	if adopted > 0 {
		klog.V(2).InfoS("Adopted running pods", "node", node, "pods", adopted)
	}
}

// Run registers the nodes and runs them until ctx ends, then shuts its
// event broadcaster down.
func (a *Agent) Run(ctx context.Context) error {
	defer utilruntime.HandleCrash()
	if c, ok := a.cfg.Runtime.(io.Closer); ok {
		// The runtime removes what it made (netns: namespaces, links,
		// routes) once the workers have stopped.
		defer func() {
			if err := c.Close(); err != nil {
				klog.ErrorS(err, "Closing the pod runtime")
			}
		}()
	}
	a.events.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: a.cfg.HeartbeatClient.CoreV1().Events("")})
	defer a.events.Shutdown()
	defer a.podQueue.ShutDown()
	defer a.hbQueue.ShutDown()
	a.informers.Start(ctx.Done())
	a.nodeFactory.Start(ctx.Done())
	if !cache.WaitForNamedCacheSyncWithContext(ctx, a.synced...) {
		return ctx.Err()
	}
	// Before the first heartbeat: the nodes report where it listens.
	if a.kubelet != nil {
		if err := a.kubelet.Start(ctx); err != nil {
			return err
		}
	}
	for _, n := range a.cfg.Names {
		if node, err := a.nodes.Get(n); err == nil {
			a.nodeChanged(node) // handlers may have run before the pods synced
		}
		a.hbQueue.Add(n)
	}
	for i := 0; i < a.cfg.HeartbeatWorkers; i++ {
		go wait.UntilWithContext(ctx, func(ctx context.Context) {
			for a.processHeartbeat(ctx) {
			}
		}, time.Second)
	}
	for i := 0; i < a.cfg.Workers; i++ {
		go wait.UntilWithContext(ctx, func(ctx context.Context) {
			for a.processPod(ctx) {
			}
		}, time.Second)
	}
	klog.InfoS("Node agent running", "nodes", len(a.cfg.Names), "workers", a.cfg.Workers)
	<-ctx.Done()
	return nil
}

func (a *Agent) processHeartbeat(ctx context.Context) bool {
	name, quit := a.hbQueue.Get()
	if quit {
		return false
	}
	defer a.hbQueue.Done(name)
	if err := a.heartbeat(ctx, name); err != nil {
		klog.ErrorS(err, "Heartbeat failed; retrying", "node", name)
		a.hbQueue.AddRateLimited(name)
		return true
	}
	a.hbQueue.Forget(name)
	a.hbQueue.AddAfter(name, a.nextBeat(name))
	return true
}

// nextBeat is the delay to a node's next heartbeat: the renew interval,
// plus, after the first round (which registers every node at once), the
// node's share of the interval so that renewals spread evenly over it.
func (a *Agent) nextBeat(name string) time.Duration {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.beats[name]++
	d := a.cfg.RenewInterval()
	if a.beats[name] == 1 {
		d += d * time.Duration(a.index[name]) / time.Duration(len(a.cfg.Names))
	}
	return d
}

// heartbeat registers the node if needed, renews its Lease and posts its
// status when stale.
func (a *Agent) heartbeat(ctx context.Context, name string) error {
	node, err := a.ensureNode(ctx, name)
	if err != nil {
		return err
	}
	if err := a.renewLease(ctx, node); err != nil {
		return err
	}
	return a.syncNodeStatus(ctx, node)
}

func (a *Agent) processPod(ctx context.Context) bool {
	key, quit := a.podQueue.Get()
	if quit {
		return false
	}
	defer a.podQueue.Done(key)
	after, err := a.syncPod(ctx, key)
	switch {
	case err != nil:
		klog.V(2).InfoS("Pod sync failed; retrying", "pod", key, "err", err)
		a.podQueue.AddRateLimited(key)
	case after > 0:
		a.podQueue.Forget(key)
		a.podQueue.AddAfter(key, after)
	default:
		a.podQueue.Forget(key)
	}
	return true
}
