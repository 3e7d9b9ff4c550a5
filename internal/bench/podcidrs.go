package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"net/netip"
	"sync"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"
)

// cidrPool hands out the /mask subnets of a cluster CIDR in order,
// skipping those taken.
type cidrPool struct {
	mu      sync.Mutex
	cluster netip.Prefix
	mask    int
	next    uint64
	size    uint64
	taken   map[netip.Prefix]bool
}

func newCIDRPool(cluster string, mask int) (*cidrPool, error) {
	p, err := netip.ParsePrefix(cluster)
	if err != nil || !p.Addr().Is4() {
		return nil, fmt.Errorf("cluster CIDR %q: want an IPv4 CIDR", cluster)
	}
	if mask < p.Bits() || mask > 32 || mask-p.Bits() > 20 {
		return nil, fmt.Errorf("cluster CIDR %s cannot be split into /%d subnets", p, mask)
	}
	return &cidrPool{cluster: p.Masked(), mask: mask, size: 1 << (mask - p.Bits()), taken: map[netip.Prefix]bool{}}, nil
}

// subnet is the i-th /mask subnet.
func (p *cidrPool) subnet(i uint64) netip.Prefix {
	a := p.cluster.Addr().As4()
	v := uint32(a[0])<<24 | uint32(a[1])<<16 | uint32(a[2])<<8 | uint32(a[3])
	v += uint32(i) << (32 - p.mask)
	return netip.PrefixFrom(netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}), p.mask)
}

// take marks a subnet already in use (a Node that has it).
func (p *cidrPool) take(s string) {
	if pre, err := netip.ParsePrefix(s); err == nil {
		p.mu.Lock()
		p.taken[pre.Masked()] = true
		p.mu.Unlock()
	}
}

// allocate returns the next free subnet.
func (p *cidrPool) allocate() (netip.Prefix, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for ; p.next < p.size; p.next++ {
		if s := p.subnet(p.next); !p.taken[s] {
			p.taken[s] = true
			p.next++
			return s, nil
		}
	}
	return netip.Prefix{}, fmt.Errorf("cluster CIDR %s: all %d /%d subnets are taken", p.cluster, p.size, p.mask)
}

// podCIDRAssigner gives each Node without a pod CIDR the next /24 of the
// cluster CIDR, as kube-controller-manager's node-ipam controller does:
// the upstream side's stand-in when no controller manager runs.
type podCIDRAssigner struct {
	client kubernetes.Interface
	pool   *cidrPool
	// queue holds node names; a name queued again while queued or
	// being assigned is assigned once more after, at most.
	queue workqueue.TypedInterface[string]
}

func newPodCIDRAssigner(client kubernetes.Interface, pool *cidrPool) *podCIDRAssigner {
	return &podCIDRAssigner{client: client, pool: pool, queue: workqueue.NewTyped[string]()}
}

// run watches Nodes and, once the pod CIDRs Nodes already have are marked
// taken, patches pod CIDRs with 8 workers until ctx ends.
func (a *podCIDRAssigner) run(ctx context.Context) {
	defer a.queue.ShutDown()
	f := informers.NewSharedInformerFactory(a.client, 0)
	nodes := f.Core().V1().Nodes()
	observe := func(obj interface{}) {
		if n, ok := obj.(*corev1.Node); ok && n.Spec.PodCIDR == "" {
			a.queue.Add(n.Name)
		}
	}
	_, _ = nodes.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: observe, UpdateFunc: func(_, obj interface{}) { observe(obj) },
	})
	f.Start(ctx.Done())
	defer f.Shutdown()
	if !cache.WaitForCacheSync(ctx.Done(), nodes.Informer().HasSynced) {
		return
	}
	list, _ := nodes.Lister().List(labels.Everything())
	for _, n := range list {
		for _, c := range n.Spec.PodCIDRs {
			a.pool.take(c)
		}
	}
	for i := 0; i < 8; i++ {
		go a.work(ctx)
	}
	<-ctx.Done()
}

func (a *podCIDRAssigner) work(ctx context.Context) {
	for {
		name, shutdown := a.queue.Get()
		if shutdown {
			return
		}
		if err := a.assign(ctx, name); err != nil && ctx.Err() == nil {
			klog.ErrorS(err, "Assigning a pod CIDR", "node", name)
		}
		a.queue.Done(name)
	}
}

// assign gives the node a pod CIDR unless it has one by now.
func (a *podCIDRAssigner) assign(ctx context.Context, name string) error {
	n, err := a.client.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
	if err != nil || n.Spec.PodCIDR != "" {
		return err
	}
	s, err := a.pool.allocate()
	if err != nil {
		return err
	}
	patch, _ := json.Marshal(map[string]any{"spec": map[string]any{"podCIDR": s.String(), "podCIDRs": []string{s.String()}}})
	_, err = a.client.CoreV1().Nodes().Patch(ctx, name, types.StrategicMergePatchType, patch, metav1.PatchOptions{})
	return err
}
