package garbagecollector

import (
	"context"
	"errors"
	"slices"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/metadata/metadatainformer"
	"k8s.io/client-go/restmapper"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	"github.com/svcplane/svcplane/internal/informerutil"
)

// ResyncPeriod is how often the collector asks discovery again and starts
// or stops monitors for resources that appeared or went (custom
// resources), kube-controller-manager's 30 s.
const ResyncPeriod = 30 * time.Second

// monitor is the informer of one resource: a metadata informer of the
// collector's own or a handler on a shared typed informer.
type monitor struct {
	stop   func()
	synced cache.InformerSynced
}

// monitors are the running informers, by resource.
type monitors struct {
	mu      sync.Mutex
	running map[schema.GroupVersionResource]*monitor
}

// rediscover asks discovery for the served resources, replaces the REST
// mapper and makes the running monitors those of the deletable resources.
// When some groups fail discovery, the monitors of their resources are
// kept (as upstream: a flaky aggregated API does not empty the graph); a
// failure of discovery as a whole changes nothing and is returned. It
// returns the monitors' synced funcs.
func (c *Collector) rediscover(ctx context.Context) ([]cache.InformerSynced, error) {
	d := &partialDiscovery{DiscoveryInterface: c.discovery}
	groups, err := restmapper.GetAPIGroupResources(d)
	if err != nil {
		return nil, err
	}
	var failed map[schema.GroupVersion]error
	var gdf *discovery.ErrGroupDiscoveryFailed
	if errors.As(d.err, &gdf) {
		failed = gdf.Groups
		klog.FromContext(ctx).Info("Garbage collector: some groups failed discovery; keeping their monitors", "err", d.err)
	}
	c.setMapper(restmapper.NewDiscoveryRESTMapper(groups))
	want := deletable(groups)
	return c.syncMonitors(ctx, want, func(gvr schema.GroupVersionResource) bool {
		_, ok := failed[gvr.GroupVersion()]
		return ok
	}), nil
}

// syncMonitors starts a monitor for every resource of want without one and
// stops those of resources not in want (unless keep says otherwise); the
// objects of a stopped monitor leave the graph (their dependents are
// looked at again: an owner the graph no longer holds is asked of the
// server).
func (c *Collector) syncMonitors(ctx context.Context, want []schema.GroupVersionResource, keep func(schema.GroupVersionResource) bool) []cache.InformerSynced {
	c.monitors.mu.Lock()
	defer c.monitors.mu.Unlock()
	if c.monitors.running == nil {
		c.monitors.running = map[schema.GroupVersionResource]*monitor{}
	}
	for gvr, m := range c.monitors.running {
		if slices.Contains(want, gvr) || keep(gvr) {
			continue
		}
		m.stop()
		delete(c.monitors.running, gvr)
		for _, uid := range c.graph.removeResource(gvr) {
			c.queue.Add(uid)
		}
		klog.FromContext(ctx).V(2).Info("Garbage collector stopped monitoring", "resource", gvr)
	}
	for _, gvr := range want {
		if _, ok := c.monitors.running[gvr]; !ok {
			c.monitors.running[gvr] = c.startMonitor(ctx, gvr)
		}
	}
	synced := make([]cache.InformerSynced, 0, len(c.monitors.running))
	for _, m := range c.monitors.running {
		synced = append(synced, m.synced)
	}
	return synced
}

// startMonitor feeds the graph with gvr's objects until ctx ends or the
// monitor is stopped: from the shared typed informer that serves gvr, if
// one runs, or else from a metadata informer of its own.
func (c *Collector) startMonitor(ctx context.Context, gvr schema.GroupVersionResource) *monitor {
	handler := cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj interface{}) { c.observe(gvr, obj) },
		UpdateFunc: func(_, obj interface{}) { c.observe(gvr, obj) },
		DeleteFunc: func(obj interface{}) { c.forget(obj) },
	}
	if shared, ok := c.sharedInformer(gvr); ok {
		if reg, err := shared.AddEventHandler(handler); err == nil {
			klog.FromContext(ctx).V(4).Info("Garbage collector watches through a shared informer", "resource", gvr)
			return &monitor{stop: func() { _ = shared.RemoveEventHandler(reg) }, synced: reg.HasSynced}
		}
	}
	inf := metadatainformer.NewFilteredMetadataInformer(c.meta, gvr, metav1.NamespaceAll, 0, cache.Indexers{}, nil).Informer()
	_ = inf.SetTransform(informerutil.DropManagedFields) // as kube-controller-manager's metadata informers
	_, _ = inf.AddEventHandler(handler)
	mctx, stop := context.WithCancel(ctx)
	go inf.RunWithContext(mctx)
	return &monitor{stop: stop, synced: inf.HasSynced}
}

// monitored lists the resources with a running monitor.
func (c *Collector) monitored() []schema.GroupVersionResource {
	c.monitors.mu.Lock()
	defer c.monitors.mu.Unlock()
	out := make([]schema.GroupVersionResource, 0, len(c.monitors.running))
	for gvr := range c.monitors.running {
		out = append(out, gvr)
	}
	return out
}

// resyncLoop rediscovers every period until ctx ends.
func (c *Collector) resyncLoop(ctx context.Context, period time.Duration) {
	t := c.clock.NewTicker(period)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C():
			if _, err := c.rediscover(ctx); err != nil {
				klog.FromContext(ctx).Error(err, "Garbage collector: discovery failed; monitors unchanged")
			}
		}
	}
}

// partialDiscovery remembers the error of the last ServerGroupsAndResources
// (restmapper.GetAPIGroupResources drops a partial failure's error).
type partialDiscovery struct {
	discovery.DiscoveryInterface
	err error
}

func (d *partialDiscovery) ServerGroupsAndResources() ([]*metav1.APIGroup, []*metav1.APIResourceList, error) {
	groups, resources, err := d.DiscoveryInterface.ServerGroupsAndResources()
	d.err = err
	return groups, resources, err
}
