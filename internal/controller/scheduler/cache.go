package scheduler

import (
	"sync"

	corev1 "k8s.io/api/core/v1"
	resourcehelper "k8s.io/component-helpers/resource"
)

// usage is what pods take of a node: their number and the sum of their
// cpu (millicores) and memory (bytes) requests.
type usage struct {
	pods        int
	milliCPU    int64
	memoryBytes int64
}

func (u *usage) add(v usage, sign int) {
	u.pods += sign * v.pods
	u.milliCPU += int64(sign) * v.milliCPU
	u.memoryBytes += int64(sign) * v.memoryBytes
}

// requestsOf is one pod's usage. A pod on a node counts with the resources
// its status reports (in-place resize), as upstream's NodeInfo; a pod to
// place with its spec, as upstream's NodeResourcesFit PreFilter. Pod-level
// resources and overhead count (resourcehelper.PodRequests).
func requestsOf(p *corev1.Pod, onNode bool) usage {
	r := resourcehelper.PodRequests(p, resourcehelper.PodResourcesOptions{UseStatusResources: onNode})
	return usage{pods: 1, milliCPU: r.Cpu().MilliValue(), memoryBytes: r.Memory().Value()}
}

type placed struct {
	node string
	use  usage
}

// podCache knows what each node runs: the assigned, non-terminal pods the
// informer shows, plus the pods this scheduler has assumed onto a node
// (bind sent or in flight) that the informer does not show there yet.
// Reading a node's usage is O(1); the informer keeps it current
// incrementally, so a placement never walks every pod. It also keeps the
// nodes the node informer shows in placement order (order.go), moving a
// node whenever its pod count changes.
type podCache struct {
	mu        sync.Mutex
	observed  map[string]placed // pod key → node and requests
	perNode   map[string]usage  // observed pods per node
	assumed   map[string]placed // pod key → node, not yet observed there
	assumedOn map[string]usage
	order     *nodeOrder
}

func newPodCache() *podCache {
	return &podCache{observed: map[string]placed{}, perNode: map[string]usage{},
		assumed: map[string]placed{}, assumedOn: map[string]usage{}, order: newNodeOrder()}
}

// setNode adds a node or takes its new version.
func (c *podCache) setNode(n *corev1.Node) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.order.set(n, c.usedLocked(n.Name).pods)
}

// deleteNode forgets a node; the pods the informer shows there still count
// for it should it come back.
func (c *podCache) deleteNode(name string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.order.remove(name)
}

// recount re-ranks node after its usage changed.
func (c *podCache) recount(node string) {
	c.order.recount(node, c.usedLocked(node).pods)
}

func podKey(p *corev1.Pod) string { return p.Namespace + "/" + p.Name }

func terminal(p *corev1.Pod) bool {
	return p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed
}

func addTo(m map[string]usage, node string, v usage, sign int) {
	u := m[node]
	u.add(v, sign)
	if u.pods == 0 {
		delete(m, node)
		return
	}
	m[node] = u
}

// observe records a pod as the informer shows it (added or updated).
func (c *podCache) observe(p *corev1.Pod) {
	c.mu.Lock()
	defer c.mu.Unlock()
	key := podKey(p)
	c.dropObserved(key)
	if p.Spec.NodeName == "" || terminal(p) {
		return
	}
	pl := placed{node: p.Spec.NodeName, use: requestsOf(p, true)}
	c.observed[key] = pl
	addTo(c.perNode, pl.node, pl.use, 1)
	c.dropAssumed(key) // now seen where it runs
	c.recount(pl.node)
}

// forget drops a deleted pod.
func (c *podCache) forget(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.dropObserved(key)
	c.dropAssumed(key)
}

func (c *podCache) dropObserved(key string) {
	if pl, ok := c.observed[key]; ok {
		delete(c.observed, key)
		addTo(c.perNode, pl.node, pl.use, -1)
		c.recount(pl.node)
	}
}

func (c *podCache) dropAssumed(key string) {
	if pl, ok := c.assumed[key]; ok {
		delete(c.assumed, key)
		addTo(c.assumedOn, pl.node, pl.use, -1)
		c.recount(pl.node)
	}
}

// assume places a pod on node before the server confirms it.
func (c *podCache) assume(key, node string, use usage) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.dropAssumed(key)
	c.assumed[key] = placed{node: node, use: use}
	addTo(c.assumedOn, node, use, 1)
	c.recount(node)
}

// unassume takes back an assumption whose bind failed.
func (c *podCache) unassume(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.dropAssumed(key)
}

// isAssumed reports a pod placed by this scheduler and not yet observed.
func (c *podCache) isAssumed(key string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.assumed[key]
	return ok
}

// used returns what node's pods take, observed and assumed.
func (c *podCache) used(node string) usage {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.usedLocked(node)
}

func (c *podCache) usedLocked(node string) usage {
	u := c.perNode[node]
	u.add(c.assumedOn[node], 1)
	return u
}

// count returns the pods on node, observed and assumed.
func (c *podCache) count(node string) int { return c.used(node).pods }
