package nodeipam

import (
	"context"
	"fmt"
	"net/netip"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	coreinformers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"

	"github.com/svcplane/svcplane/internal/controller/worker"
)

// Controller assigns pod CIDRs to Nodes.
type Controller struct {
	client kubernetes.Interface
	nodes  corelisters.NodeLister
	synced cache.InformerSynced
	queue  workqueue.TypedRateLimitingInterface[string]

	events   record.EventBroadcaster
	recorder record.EventRecorder
	// warnedFull: the "cluster CIDR is full" warning was logged.
	warnedFull bool

	mu   sync.Mutex
	sets []*cidrSet // one per family, in --cluster-cidr order
	// owned remembers what each Node got, to free it when the Node goes.
	owned map[string][]netip.Prefix
}

// New returns a controller for clusterCIDRs with maskV4/maskV6 subnets.
func New(client kubernetes.Interface, nodes coreinformers.NodeInformer, clusterCIDRs []netip.Prefix, maskV4, maskV6 int) (*Controller, error) {
	b := record.NewBroadcaster()
	c := &Controller{client: client, nodes: nodes.Lister(), synced: nodes.Informer().HasSynced, owned: map[string][]netip.Prefix{},
		queue: worker.NewQueue[string]("nodeipam"), events: b,
		recorder: b.NewRecorder(scheme.Scheme, corev1.EventSource{Component: "cidrAllocator"})}
	for _, p := range clusterCIDRs {
		mask := maskV4
		if p.Addr().Is6() {
			mask = maskV6
		}
		s, err := newCIDRSet(p, mask)
		if err != nil {
			return nil, err
		}
		c.sets = append(c.sets, s)
	}
	_, _ = nodes.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj interface{}) { c.queue.Add(obj.(*corev1.Node).Name) },
		UpdateFunc: func(_, obj interface{}) { c.queue.Add(obj.(*corev1.Node).Name) },
		DeleteFunc: c.nodeDeleted,
	})
	return c, nil
}

func (c *Controller) nodeDeleted(obj interface{}) {
	if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = t.Obj
	}
	n, ok := obj.(*corev1.Node)
	if !ok {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, p := range c.owned[n.Name] {
		for _, s := range c.sets {
			s.release(p)
		}
	}
	delete(c.owned, n.Name)
}

// Run occupies the CIDRs Nodes already have, then processes the queue;
// its event broadcaster stops with it.
func (c *Controller) Run(ctx context.Context, workers int) {
	c.events.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: c.client.CoreV1().Events("")})
	defer c.events.Shutdown()
	if !cache.WaitForNamedCacheSyncWithContext(ctx, c.synced) {
		c.queue.ShutDown()
		return
	}
	nodes, _ := c.nodes.List(labels.Everything())
	c.mu.Lock()
	for _, n := range nodes {
		c.occupyLocked(n)
	}
	c.mu.Unlock()
	worker.Run(ctx, c.queue, workers, func(ctx context.Context, key string) (time.Duration, error) {
		return 0, c.sync(ctx, key)
	})
}

// fullLocked says, as kube-controller-manager's range allocator does, that
// n gets no pod CIDR: an event of its type and reason (Normal,
// CIDRNotAvailable) on the Node whose message starts as upstream's and
// names the flag, and once in the log which flags to change: a node
// without pod CIDRs never runs pods.
func (c *Controller) fullLocked(n *corev1.Node, s *cidrSet, err error) {
	c.recorder.Eventf(n, corev1.EventTypeNormal, "CIDRNotAvailable",
		"Node %s status is now: CIDRNotAvailable (%v: --cluster-cidr %s holds %d /%d subnets)", n.Name, err, s.cluster, s.used.Size(), s.mask)
	if !c.warnedFull {
		c.warnedFull = true
		maskFlag := "--node-cidr-mask-size-ipv4"
		if s.cluster.Addr().Is6() {
			maskFlag = "--node-cidr-mask-size-ipv6"
		}
		klog.Warningf("--cluster-cidr %s is full: its %d /%d pod subnets are taken, so node %s and any later one get no pod CIDR and run no pods; give a larger --cluster-cidr or a longer %s",
			s.cluster, s.used.Size(), s.mask, n.Name, maskFlag)
	}
}

// occupyLocked marks the subnets n already has used (idempotent).
func (c *Controller) occupyLocked(n *corev1.Node) {
	var owned []netip.Prefix
	for _, cidr := range n.Spec.PodCIDRs {
		p, err := netip.ParsePrefix(cidr)
		if err != nil {
			continue
		}
		for _, s := range c.sets {
			s.occupy(p)
		}
		owned = append(owned, p)
	}
	if len(owned) > 0 {
		c.owned[n.Name] = owned
	}
}

// sync gives a Node without pod CIDRs one subnet per cluster CIDR.
func (c *Controller) sync(ctx context.Context, name string) error {
	n, err := c.nodes.Get(name)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if len(n.Spec.PodCIDRs) > 0 || n.Spec.PodCIDR != "" {
		// A Node that came with its CIDRs (or got them from another
		// leader): occupy them, as upstream's AllocateOrOccupyCIDR.
		c.mu.Lock()
		c.occupyLocked(n)
		c.mu.Unlock()
		return nil
	}
	c.mu.Lock()
	var got []netip.Prefix
	for _, s := range c.sets {
		p, err := s.next()
		if err != nil {
			for i, g := range got {
				c.sets[i].release(g)
			}
			c.fullLocked(n, s, err)
			c.mu.Unlock()
			return fmt.Errorf("node %s: %w", name, err)
		}
		got = append(got, p)
	}
	c.mu.Unlock()
	n = n.DeepCopy()
	for _, p := range got {
		n.Spec.PodCIDRs = append(n.Spec.PodCIDRs, p.String())
	}
	n.Spec.PodCIDR = n.Spec.PodCIDRs[0]
	_, err = c.client.CoreV1().Nodes().Update(ctx, n, metav1.UpdateOptions{})
	c.mu.Lock()
	defer c.mu.Unlock()
	if err != nil {
		for i, g := range got {
			c.sets[i].release(g)
		}
		return err
	}
	c.owned[name] = got
	return nil
}
