package garbagecollector

import (
	"context"
	"reflect"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/cache"
)

// Shared are the typed informers the controller manager runs for its
// other controllers. The collector watches a resource one of them serves
// through it, as kube-controller-manager's collector uses the shared typed
// informers (its informer factory's ForResource), instead of a metadata
// informer of its own: each pod is then decoded and held once, not twice.
// A resource no controller asked for still gets a metadata informer
// (upstream's collector would start a typed one, objects whole).
type Shared struct {
	Factory informers.SharedInformerFactory
	// Started is closed once every controller has asked for its informers
	// and Factory has been started; nil shares nothing.
	Started <-chan struct{}
}

// WithShared makes the collector watch through s's informers where they
// serve a resource.
func (c *Collector) WithShared(s Shared) *Collector {
	c.shared = s
	return c
}

// loadShared waits until the shared informers are started and notes
// their object types; false when ctx ends first. It does not wait for
// them to sync: each monitor's handler says when it has (a shared
// informer that never syncs holds back only the collector's work, as a
// metadata informer of its own would).
func (c *Collector) loadShared(ctx context.Context) bool {
	if c.shared.Factory == nil || c.shared.Started == nil {
		return true // nothing shared: metadata informers for all
	}
	select {
	case <-c.shared.Started:
	case <-ctx.Done():
		return false
	}
	// With its stop channel closed, WaitForCacheSync returns at once,
	// keyed by every started informer's object type.
	now := make(chan struct{})
	close(now)
	c.sharedTypes = map[reflect.Type]bool{}
	for t := range c.shared.Factory.WaitForCacheSync(now) {
		c.sharedTypes[t] = true
	}
	return true
}

// sharedInformer is the shared informer that serves gvr, if one runs.
func (c *Collector) sharedInformer(gvr schema.GroupVersionResource) (cache.SharedIndexInformer, bool) {
	if len(c.sharedTypes) == 0 {
		return nil, false
	}
	m := c.restMapper()
	if m == nil {
		return nil, false
	}
	gvk, err := m.KindFor(gvr)
	if err != nil {
		return nil, false
	}
	obj, err := scheme.Scheme.New(gvk)
	if err != nil || !c.sharedTypes[reflect.TypeOf(obj)] {
		return nil, false
	}
	gi, err := c.shared.Factory.ForResource(gvr)
	if err != nil {
		return nil, false
	}
	return gi.Informer(), true
}
