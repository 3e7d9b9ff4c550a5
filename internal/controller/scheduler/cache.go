package scheduler

import (
	"sync"

	corev1 "k8s.io/api/core/v1"
)

// podCache knows how many pods each node runs: the assigned, non-terminal
// pods the informer shows, plus the pods this scheduler has assumed onto a
// node (bind sent or in flight) that the informer does not show there yet.
// Counting is O(1); the informer keeps it current incrementally, so a
// placement never walks every pod.
type podCache struct {
	mu        sync.Mutex
	nodeOf    map[string]string // observed: pod key → node
	perNode   map[string]int    // observed pods per node
	assumed   map[string]string // pod key → node, not yet observed there
	assumedOn map[string]int
}

func newPodCache() *podCache {
	return &podCache{nodeOf: map[string]string{}, perNode: map[string]int{},
		assumed: map[string]string{}, assumedOn: map[string]int{}}
}

func podKey(p *corev1.Pod) string { return p.Namespace + "/" + p.Name }

func terminal(p *corev1.Pod) bool {
	return p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed
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
	c.nodeOf[key] = p.Spec.NodeName
	c.perNode[p.Spec.NodeName]++
	c.dropAssumed(key) // now seen where it runs
}

// forget drops a deleted pod.
func (c *podCache) forget(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.dropObserved(key)
	c.dropAssumed(key)
}

func (c *podCache) dropObserved(key string) {
	if n, ok := c.nodeOf[key]; ok {
		delete(c.nodeOf, key)
		if c.perNode[n]--; c.perNode[n] == 0 {
			delete(c.perNode, n)
		}
	}
}

func (c *podCache) dropAssumed(key string) {
	if n, ok := c.assumed[key]; ok {
		delete(c.assumed, key)
		if c.assumedOn[n]--; c.assumedOn[n] == 0 {
			delete(c.assumedOn, n)
		}
	}
}

// assume places a pod on node before the server confirms it.
func (c *podCache) assume(key, node string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.dropAssumed(key)
	c.assumed[key] = node
	c.assumedOn[node]++
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

// count returns the pods on node, observed and assumed.
func (c *podCache) count(node string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.perNode[node] + c.assumedOn[node]
}
