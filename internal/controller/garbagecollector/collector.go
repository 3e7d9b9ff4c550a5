package garbagecollector

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/restmapper"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
	"k8s.io/utils/lru"

	"github.com/svcplane/svcplane/internal/controller/worker"
)

// RetryBlocked is how soon an owner waiting for dependents is looked at.
const RetryBlocked = time.Second

// RetryDiscovery is how soon a failed first discovery is tried again.
const RetryDiscovery = time.Second

// Collector is the garbage collector.
type Collector struct {
	meta      metadata.Interface
	discovery discovery.DiscoveryInterface
	graph     *graph
	queue     workqueue.TypedRateLimitingInterface[types.UID]
	monitors  monitors
	clock     clock.WithTicker

	mapperMu sync.RWMutex
	mapper   meta.RESTMapper

	// absent are owner UIDs the server said are gone (upstream's
	// absentOwnerCache): the dependents of a deleted ReplicaSet of 10,000
	// pods ask for it once, not 10,000 times.
	absent *lru.Cache

	// shared are the controller manager's typed informers (shared.go);
	// sharedTypes the object types they serve, once started and synced.
	shared      Shared
	sharedTypes map[reflect.Type]bool
}

// ConcurrentGCSyncs is the collector's workers: kube-controller-manager's
// --concurrent-gc-syncs default. A background delete of 10,000 pods is
// 10,000 graceful DELETEs one after the other in each worker.
const ConcurrentGCSyncs = 20

// AbsentOwnerCacheSize is how many absent owners are remembered, as
// upstream's collector.
const AbsentOwnerCacheSize = 500

// New returns a collector.
func New(metaClient metadata.Interface, disco discovery.DiscoveryInterface) *Collector {
	return &Collector{meta: metaClient, discovery: disco, graph: newGraph(),
		queue: worker.NewQueue[types.UID]("garbage_collector"), clock: clock.RealClock{},
		absent: lru.New(AbsentOwnerCacheSize)}
}

// Run builds the graph from informers over every deletable resource and
// processes it until ctx ends; every ResyncPeriod it asks discovery again
// and monitors the resources that appeared (custom resources), stops
// monitoring those that went.
func (c *Collector) Run(ctx context.Context, workers int) error {
	if !c.loadShared(ctx) {
		return ctx.Err()
	}
	synced, err := c.firstDiscovery(ctx)
	if err != nil {
		return err
	}
	go c.resyncLoop(ctx, ResyncPeriod)
	worker.Run(ctx, c.queue, workers, c.processKey, synced...)
	return nil
}

// firstDiscovery rediscovers until it succeeds (discovery may fail while
// the server starts; upstream's collector waits for its first sync the
// same way), every RetryDiscovery; it fails only when ctx ends.
func (c *Collector) firstDiscovery(ctx context.Context) ([]cache.InformerSynced, error) {
	for {
		synced, err := c.rediscover(ctx)
		if err == nil {
			return synced, nil
		}
		klog.FromContext(ctx).Error(err, "Garbage collector: discovery failed; trying again", "after", RetryDiscovery)
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-c.clock.After(RetryDiscovery):
		}
	}
}

func (c *Collector) setMapper(m meta.RESTMapper) {
	c.mapperMu.Lock()
	defer c.mapperMu.Unlock()
	c.mapper = m
}

func (c *Collector) restMapper() meta.RESTMapper {
	c.mapperMu.RLock()
	defer c.mapperMu.RUnlock()
	return c.mapper
}

// IgnoredResources are the resources the collector does not monitor:
// kube-controller-manager's default (garbagecollector
// DefaultIgnoredResources; the drift test compares them): Events, which
// are many and expire on their own (etcd leases), so watching them all
// would cost the collector most of its memory in a busy cluster.
func IgnoredResources() map[schema.GroupResource]struct{} {
	return map[schema.GroupResource]struct{}{
		{Group: "", Resource: "events"}:              {},
		{Group: "events.k8s.io", Resource: "events"}: {},
	}
}

// deletable lists the preferred versions of resources that can be listed,
// watched and deleted, but for the IgnoredResources.
func deletable(groups []*restmapper.APIGroupResources) []schema.GroupVersionResource {
	var out []schema.GroupVersionResource
	ignored := IgnoredResources()
	for _, g := range groups {
		v := g.Group.PreferredVersion.Version
		for _, r := range g.VersionedResources[v] {
			if _, skip := ignored[schema.GroupResource{Group: g.Group.Name, Resource: r.Name}]; skip {
				continue
			}
			if slices.Contains(r.Verbs, "list") && slices.Contains(r.Verbs, "watch") && slices.Contains(r.Verbs, "delete") &&
				!containsSlash(r.Name) {
				out = append(out, schema.GroupVersionResource{Group: g.Group.Name, Version: v, Resource: r.Name})
			}
		}
	}
	return out
}

func containsSlash(s string) bool {
	for _, r := range s {
		if r == '/' {
			return true
		}
	}
	return false
}

func (c *Collector) observe(gvr schema.GroupVersionResource, obj interface{}) {
	m, err := meta.Accessor(obj)
	if err != nil {
		return
	}
	n := &node{gvr: gvr, namespace: m.GetNamespace(), name: m.GetName(), uid: m.GetUID(),
		owners: m.GetOwnerReferences(), deleting: m.GetDeletionTimestamp() != nil, finalizers: m.GetFinalizers()}
	c.graph.upsert(n)
	if len(n.owners) > 0 || n.deleting {
		c.queue.Add(n.uid)
	}
}

func (c *Collector) forget(obj interface{}) {
	if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = t.Obj
	}
	m, err := meta.Accessor(obj)
	if err != nil {
		return
	}
	for _, d := range c.graph.remove(m.GetUID()) {
		c.queue.Add(d) // a dependent may have lost its last owner
	}
	for _, o := range m.GetOwnerReferences() {
		c.queue.Add(o.UID) // a foreground owner may be unblocked
	}
}

func (c *Collector) processKey(ctx context.Context, uid types.UID) (time.Duration, error) {
	retry, err := c.process(ctx, uid)
	var unknown *unknownOwnerKind
	switch {
	case errors.As(err, &unknown):
		// A custom resource's kind the mapper learns at the next
		// rediscovery, or a kind that does not exist: retried with
		// backoff, as upstream, without an error in the log.
		return worker.Backoff, nil
	case err == nil && retry:
		return RetryBlocked, nil
	}
	return 0, err
}

// unknownOwnerKind is an owner reference whose kind the REST mapper does
// not know.
type unknownOwnerKind struct{ ref metav1.OwnerReference }

func (e *unknownOwnerKind) Error() string {
	return "owner kind " + e.ref.Kind + " of " + e.ref.APIVersion + " is not served (yet)"
}

// process handles one object: its own deletion modes, then its owners.
func (c *Collector) process(ctx context.Context, uid types.UID) (bool, error) {
	n := c.graph.get(uid)
	if n == nil {
		return false, nil
	}
	if n.deleting && n.hasFinalizer(metav1.FinalizerOrphanDependents) {
		return false, c.orphan(ctx, n)
	}
	if n.deleting && n.hasFinalizer(metav1.FinalizerDeleteDependents) {
		return c.foreground(ctx, n)
	}
	if len(n.owners) == 0 || n.deleting {
		return false, nil
	}
	return false, c.checkOwners(ctx, n)
}

func (c *Collector) delete(ctx context.Context, n *node, policy metav1.DeletionPropagation) error {
	uid := n.uid
	err := c.meta.Resource(n.gvr).Namespace(n.namespace).Delete(ctx, n.name, metav1.DeleteOptions{
		Preconditions: &metav1.Preconditions{UID: &uid}, PropagationPolicy: &policy})
	if apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
		return nil
	}
	return err
}

func (c *Collector) patchOwners(ctx context.Context, n *node, owners []metav1.OwnerReference) error {
	patch, _ := json.Marshal(map[string]interface{}{"metadata": map[string]interface{}{"ownerReferences": owners, "uid": n.uid}})
	_, err := c.meta.Resource(n.gvr).Namespace(n.namespace).Patch(ctx, n.name, types.MergePatchType, patch, metav1.PatchOptions{})
	if apierrors.IsNotFound(err) || apierrors.IsConflict(err) || apierrors.IsInvalid(err) {
		return nil
	}
	return err
}

func (c *Collector) removeFinalizer(ctx context.Context, n *node, f string) error {
	rest := slices.DeleteFunc(slices.Clone(n.finalizers), func(x string) bool { return x == f })
	patch, _ := json.Marshal(map[string]interface{}{"metadata": map[string]interface{}{"finalizers": rest, "uid": n.uid}})
	_, err := c.meta.Resource(n.gvr).Namespace(n.namespace).Patch(ctx, n.name, types.MergePatchType, patch, metav1.PatchOptions{})
	if apierrors.IsNotFound(err) || apierrors.IsInvalid(err) {
		return nil
	}
	return err
}

// orphan removes n from its dependents' owners, then its orphan finalizer.
func (c *Collector) orphan(ctx context.Context, n *node) error {
	for _, d := range c.graph.dependentsOf(n.uid) {
		owners := slices.DeleteFunc(slices.Clone(d.owners), func(o metav1.OwnerReference) bool { return o.UID == n.uid })
		if err := c.patchOwners(ctx, d, owners); err != nil {
			return err
		}
	}
	return c.removeFinalizer(ctx, n, metav1.FinalizerOrphanDependents)
}
