package endpointslice

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	coreinformers "k8s.io/client-go/informers/core/v1"
	discoveryinformers "k8s.io/client-go/informers/discovery/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
	discoverylisters "k8s.io/client-go/listers/discovery/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/workqueue"
	esreconciler "k8s.io/endpointslice"
	"k8s.io/endpointslice/topologycache"
	esutil "k8s.io/endpointslice/util"
	"k8s.io/klog/v2"

	"github.com/svcplane/svcplane/internal/controller/podservices"
	"github.com/svcplane/svcplane/internal/controller/worker"
)

// ControllerName is the managed-by label value, as upstream.
const ControllerName = "endpointslice-controller.k8s.io"

// MaxEndpointsPerSlice is upstream's default.
const MaxEndpointsPerSlice = 100

// Controller keeps the EndpointSlices of selector Services.
type Controller struct {
	services   corelisters.ServiceLister
	pods       corelisters.PodLister
	client     kubernetes.Interface
	slices     discoverylisters.EndpointSliceLister
	nodes      corelisters.NodeLister
	synced     []cache.InformerSynced
	reconciler *esreconciler.Reconciler
	tracker    *esutil.EndpointSliceTracker
	topology   *topologycache.TopologyCache
	queue      workqueue.TypedRateLimitingInterface[string]
	// events records to the API while Run runs.
	events record.EventBroadcaster
}

// New returns a controller fed by the given informers.
func New(client kubernetes.Interface, services coreinformers.ServiceInformer, pods coreinformers.PodInformer,
	slices discoveryinformers.EndpointSliceInformer, nodes coreinformers.NodeInformer) *Controller {
	b := record.NewBroadcaster()
	recorder := b.NewRecorder(scheme.Scheme, corev1.EventSource{Component: "endpoint-slice-controller"})
	c := &Controller{
		client: client, services: services.Lister(), pods: pods.Lister(), slices: slices.Lister(), nodes: nodes.Lister(),
		synced: []cache.InformerSynced{services.Informer().HasSynced, pods.Informer().HasSynced,
			slices.Informer().HasSynced, nodes.Informer().HasSynced},
		tracker:  esutil.NewEndpointSliceTracker(),
		topology: topologycache.NewTopologyCache(),
		queue:    worker.NewQueue[string]("endpoint_slice"),
		events:   b,
	}
	// PreferSameZone and PreferSameNode are GA in the 1.36 API we serve.
	c.reconciler = esreconciler.NewReconciler(client, c.nodes, MaxEndpointsPerSlice, c.tracker, c.topology, recorder, ControllerName,
		esreconciler.WithPreferSameTrafficDistributionEnabled(true))
	_, _ = services.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: c.enqueue, UpdateFunc: func(_, obj interface{}) { c.enqueue(obj) }, DeleteFunc: c.enqueue,
	})
	_, _ = pods.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj interface{}) { c.podChanged(nil, obj) },
		UpdateFunc: c.podChanged,
		DeleteFunc: func(obj interface{}) { c.podChanged(nil, obj) },
	})
	_, _ = slices.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    c.sliceChanged,
		UpdateFunc: func(_, obj interface{}) { c.sliceChanged(obj) },
		DeleteFunc: c.sliceDeleted,
	})
	_, _ = nodes.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: c.nodesChanged, UpdateFunc: func(_, obj interface{}) { c.nodesChanged(obj) }, DeleteFunc: c.nodesChanged,
	})
	return c
}

func (c *Controller) enqueue(obj interface{}) {
	if key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj); err == nil {
		c.queue.Add(key)
	}
}

// podChanged enqueues every Service whose selector matches the pod before
// or after the change.
func (c *Controller) podChanged(oldObj, obj interface{}) {
	for _, o := range []interface{}{oldObj, obj} {
		for _, key := range podservices.Keys(c.services, o) {
			c.queue.Add(key)
		}
	}
}

// sliceChanged resyncs the Service of a slice this controller manages when
// the change is not one it made itself (someone else edited it).
func (c *Controller) sliceChanged(obj interface{}) {
	s, ok := obj.(*discoveryv1.EndpointSlice)
	if !ok || !c.reconciler.ManagedByController(s) {
		return
	}
	if c.tracker.ShouldSync(s) {
		c.enqueueSliceService(s)
	}
}

func (c *Controller) sliceDeleted(obj interface{}) {
	if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = t.Obj
	}
	s, ok := obj.(*discoveryv1.EndpointSlice)
	if !ok || !c.reconciler.ManagedByController(s) {
		return
	}
	// HandleDeletion reports false for a deletion the controller did not
	// make (someone deleted a slice it keeps): only that one resyncs the
	// Service, as upstream's onEndpointSliceDelete.
	if c.tracker.Has(s) && !c.tracker.HandleDeletion(s) {
		c.enqueueSliceService(s)
	}
}

func (c *Controller) enqueueSliceService(s *discoveryv1.EndpointSlice) {
	if key, err := esreconciler.ServiceControllerKey(s); err == nil {
		c.queue.Add(key)
	}
}

func (c *Controller) nodesChanged(interface{}) {
	nodes, err := c.nodes.List(labels.Everything())
	if err != nil {
		return
	}
	c.topology.SetNodes(klog.Background(), nodes)
	for _, key := range c.topology.GetOverloadedServices() {
		c.queue.Add(key)
	}
}

// sync reconciles the EndpointSlices of one Service.
func (c *Controller) sync(ctx context.Context, key string) error {
	ns, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return err
	}
	svc, err := c.services.Services(ns).Get(name)
	if apierrors.IsNotFound(err) {
		c.reconciler.DeleteService(ns, name)
		c.tracker.DeleteService(ns, name)
		return c.deleteSlices(ctx, ns, name)
	}
	if err != nil {
		return err
	}
	if svc.Spec.Type == corev1.ServiceTypeExternalName || svc.Spec.Selector == nil {
		return nil // selector-less Services are mirrored from Endpoints, if at all
	}
	pods, err := c.pods.Pods(ns).List(labels.SelectorFromValidatedSet(svc.Spec.Selector))
	if err != nil {
		return err
	}
	existing, err := c.slices.EndpointSlices(ns).List(labels.SelectorFromSet(labels.Set{
		discoveryv1.LabelServiceName: name, discoveryv1.LabelManagedBy: ControllerName}))
	if err != nil {
		return err
	}
	if c.tracker.StaleSlices(svc, existing) {
		return worker.Transient(fmt.Errorf("EndpointSlice informer cache is out of date"))
	}
	return c.reconciler.Reconcile(klog.FromContext(ctx), svc, pods, existing, time.Now())
}

// deleteSlices removes the slices this controller made for a deleted
// Service. Their owner reference would let a garbage collector do it; this
// keeps them from outliving their Service where none runs.
func (c *Controller) deleteSlices(ctx context.Context, ns, name string) error {
	existing, err := c.slices.EndpointSlices(ns).List(labels.SelectorFromSet(labels.Set{
		discoveryv1.LabelServiceName: name, discoveryv1.LabelManagedBy: ControllerName}))
	if err != nil {
		return err
	}
	for _, s := range existing {
		err := c.client.DiscoveryV1().EndpointSlices(ns).Delete(ctx, s.Name, metav1.DeleteOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			return err
		}
	}
	return nil
}

// Run records events and processes the queue with workers until ctx ends,
// then shuts its event broadcaster down.
func (c *Controller) Run(ctx context.Context, workers int) {
	c.events.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: c.client.CoreV1().Events("")})
	defer c.events.Shutdown()
	worker.Run(ctx, c.queue, workers, c.syncKey, c.synced...)
}

func (c *Controller) syncKey(ctx context.Context, key string) (time.Duration, error) {
	return 0, c.sync(ctx, key)
}
