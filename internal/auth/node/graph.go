package node

import (
	"sync"
)

// podKey names a pod.
type podKey struct{ namespace, name string }

// Graph is what upstream's node authorizer graph answers, kept as the
// relations themselves: which node each bound pod is on, and for every
// object a bound pod refers to (Secret, ConfigMap, ServiceAccount, PVC,
// ResourceClaim), how many of its referring pods are on each node. A path
// object → pod → node exists exactly when that count is positive, so a
// question is two map look-ups. Safe for concurrent use.
type Graph struct {
	mu sync.RWMutex
	// pods holds each bound pod's node and references.
	pods map[podKey]podEntry
	// refs counts, per referenced object and node, the referring pods.
	refs map[ref]map[string]int
}

type podEntry struct {
	node string
	refs []ref
}

// NewGraph returns an empty graph.
func NewGraph() *Graph {
	return &Graph{pods: map[podKey]podEntry{}, refs: map[ref]map[string]int{}}
}

// AddPod records (or replaces) a pod bound to its node and the objects
// it refers to (the record's, which the Graph shares: neither changes
// them). Pods without a node are the caller's to skip.
func (g *Graph) AddPod(pod *PodRecord) {
	key := podKey{pod.Namespace, pod.Name}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.deletePodLocked(key)
	g.pods[key] = podEntry{node: pod.NodeName, refs: pod.refs}
	for _, r := range pod.refs {
		byNode := g.refs[r]
		if byNode == nil {
			byNode = map[string]int{}
			g.refs[r] = byNode
		}
		byNode[pod.NodeName]++
	}
}

// DeletePod forgets a pod and its references.
func (g *Graph) DeletePod(namespace, name string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.deletePodLocked(podKey{namespace, name})
}

func (g *Graph) deletePodLocked(key podKey) {
	e, ok := g.pods[key]
	if !ok {
		return
	}
	delete(g.pods, key)
	for _, r := range e.refs {
		byNode := g.refs[r]
		if byNode[e.node]--; byNode[e.node] <= 0 {
			delete(byNode, e.node)
		}
		if len(byNode) == 0 {
			delete(g.refs, r)
		}
	}
}

// podOnNode reports whether pod namespace/name is bound to node.
func (g *Graph) podOnNode(node, namespace, name string) bool {
	g.mu.RLock()
	defer g.mu.RUnlock()
	e, ok := g.pods[podKey{namespace, name}]
	return ok && e.node == node
}

// referencedFrom reports whether a pod bound to node refers to r.
func (g *Graph) referencedFrom(node string, r ref) bool {
	g.mu.RLock()
	defer g.mu.RUnlock()
	return g.refs[r][node] > 0
}

// Pods returns how many bound pods the graph holds.
func (g *Graph) Pods() int {
	g.mu.RLock()
	defer g.mu.RUnlock()
	return len(g.pods)
}
