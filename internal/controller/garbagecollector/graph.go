package garbagecollector

import (
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
)

// node is one object of the graph.
type node struct {
	gvr        schema.GroupVersionResource
	namespace  string
	name       string
	uid        types.UID
	owners     []metav1.OwnerReference
	deleting   bool
	finalizers []string
}

func (n *node) hasFinalizer(f string) bool {
	for _, x := range n.finalizers {
		if x == f {
			return true
		}
	}
	return false
}

// graph indexes objects by UID and dependents by owner UID.
type graph struct {
	mu         sync.RWMutex
	byUID      map[types.UID]*node
	dependents map[types.UID]map[types.UID]bool
}

func newGraph() *graph {
	return &graph{byUID: map[types.UID]*node{}, dependents: map[types.UID]map[types.UID]bool{}}
}

// upsert records n and returns the UIDs of owners it gained or lost.
func (g *graph) upsert(n *node) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if old := g.byUID[n.uid]; old != nil {
		for _, o := range old.owners {
			delete(g.dependents[o.UID], n.uid)
		}
	}
	g.byUID[n.uid] = n
	for _, o := range n.owners {
		if g.dependents[o.UID] == nil {
			g.dependents[o.UID] = map[types.UID]bool{}
		}
		g.dependents[o.UID][n.uid] = true
	}
}

// remove forgets uid and returns its dependents.
func (g *graph) remove(uid types.UID) []types.UID {
	g.mu.Lock()
	defer g.mu.Unlock()
	if old := g.byUID[uid]; old != nil {
		for _, o := range old.owners {
			delete(g.dependents[o.UID], uid)
		}
	}
	delete(g.byUID, uid)
	var deps []types.UID
	for d := range g.dependents[uid] {
		deps = append(deps, d)
	}
	return deps
}

func (g *graph) get(uid types.UID) *node {
	g.mu.RLock()
	defer g.mu.RUnlock()
	return g.byUID[uid]
}

// dependentsOf returns the nodes that name uid as an owner.
func (g *graph) dependentsOf(uid types.UID) []*node {
	g.mu.RLock()
	defer g.mu.RUnlock()
	var out []*node
	for d := range g.dependents[uid] {
		if n := g.byUID[d]; n != nil {
			out = append(out, n)
		}
	}
	return out
}

// removeResource forgets every object of gvr's group and resource (any
// version) and returns their dependents.
func (g *graph) removeResource(gvr schema.GroupVersionResource) []types.UID {
	g.mu.RLock()
	var uids []types.UID
	for uid, n := range g.byUID {
		if n.gvr.GroupResource() == gvr.GroupResource() {
			uids = append(uids, uid)
		}
	}
	g.mu.RUnlock()
	var deps []types.UID
	for _, uid := range uids {
		deps = append(deps, g.remove(uid)...)
	}
	return deps
}
