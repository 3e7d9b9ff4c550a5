package mirroring

import (
	"context"
	"net"
	"reflect"
	"sort"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	coreinformers "k8s.io/client-go/informers/core/v1"
	discoveryinformers "k8s.io/client-go/informers/discovery/v1"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	discoverylisters "k8s.io/client-go/listers/discovery/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"

	"github.com/svcplane/svcplane/internal/controller/worker"
)

// ControllerName is the managed-by label value, as upstream.
const ControllerName = "endpointslicemirroring-controller.k8s.io"

// Controller mirrors Endpoints of selector-less Services into EndpointSlices.
type Controller struct {
	client    kubernetes.Interface
	services  corelisters.ServiceLister
	endpoints corelisters.EndpointsLister
	slices    discoverylisters.EndpointSliceLister
	synced    []cache.InformerSynced
	queue     workqueue.TypedRateLimitingInterface[string]
}

// New returns a controller fed by the given informers.
func New(client kubernetes.Interface, services coreinformers.ServiceInformer, endpoints coreinformers.EndpointsInformer,
	slices discoveryinformers.EndpointSliceInformer) *Controller {
	c := &Controller{client: client, services: services.Lister(), endpoints: endpoints.Lister(), slices: slices.Lister(),
		synced: []cache.InformerSynced{services.Informer().HasSynced, endpoints.Informer().HasSynced, slices.Informer().HasSynced},
		queue:  worker.NewQueue[string]("endpoint_slice_mirroring")}
	enqueue := func(obj interface{}) {
		if key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj); err == nil {
			c.queue.Add(key)
		}
	}
	handlers := cache.ResourceEventHandlerFuncs{AddFunc: enqueue, UpdateFunc: func(_, obj interface{}) { enqueue(obj) }, DeleteFunc: enqueue}
	_, _ = services.Informer().AddEventHandler(handlers)
	_, _ = endpoints.Informer().AddEventHandler(handlers)
	return c
}

func (c *Controller) sync(ctx context.Context, key string) error {
	ns, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return err
	}
	existing, err := c.slices.EndpointSlices(ns).List(labels.SelectorFromSet(labels.Set{
		discoveryv1.LabelServiceName: name, discoveryv1.LabelManagedBy: ControllerName}))
	if err != nil {
		return err
	}
	var want []*discoveryv1.EndpointSlice
	svc, svcErr := c.services.Services(ns).Get(name)
	ep, epErr := c.endpoints.Endpoints(ns).Get(name)
	if svcErr == nil && epErr == nil && svc.Spec.Selector == nil && ep.Labels[discoveryv1.LabelSkipMirror] != "true" {
		want = desired(svc, ep)
	} else if (svcErr != nil && !apierrors.IsNotFound(svcErr)) || (epErr != nil && !apierrors.IsNotFound(epErr)) {
		return firstErr(svcErr, epErr)
	}
	if sameContent(existing, want) {
		return nil
	}
	for _, s := range existing {
		if err := c.client.DiscoveryV1().EndpointSlices(ns).Delete(ctx, s.Name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			return err
		}
	}
	for _, s := range want {
		if _, err := c.client.DiscoveryV1().EndpointSlices(ns).Create(ctx, s, metav1.CreateOptions{}); err != nil {
			return err
		}
	}
	return nil
}

func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil && !apierrors.IsNotFound(e) {
			return e
		}
	}
	return nil
}

// desired returns one slice per subset and address family of ep.
func desired(_ *corev1.Service, ep *corev1.Endpoints) []*discoveryv1.EndpointSlice {
	var out []*discoveryv1.EndpointSlice
	yes := true
	for _, sub := range ep.Subsets {
		byType := map[discoveryv1.AddressType]*discoveryv1.EndpointSlice{}
		add := func(a corev1.EndpointAddress, ready bool) {
			ip := net.ParseIP(a.IP)
			if ip == nil {
				return
			}
			t := discoveryv1.AddressTypeIPv4
			if ip.To4() == nil {
				t = discoveryv1.AddressTypeIPv6
			}
			s := byType[t]
			if s == nil {
				s = &discoveryv1.EndpointSlice{
					ObjectMeta: metav1.ObjectMeta{GenerateName: ep.Name + "-", Namespace: ep.Namespace,
						Labels:          map[string]string{discoveryv1.LabelServiceName: ep.Name, discoveryv1.LabelManagedBy: ControllerName},
						OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "Endpoints", Name: ep.Name, UID: ep.UID, Controller: &yes}}},
					AddressType: t, Endpoints: []discoveryv1.Endpoint{}}
				for _, p := range sub.Ports {
					name, port, proto := p.Name, p.Port, p.Protocol
					s.Ports = append(s.Ports, discoveryv1.EndpointPort{Name: &name, Port: &port, Protocol: &proto, AppProtocol: p.AppProtocol})
				}
				byType[t] = s
				out = append(out, s)
			}
			r := ready
			s.Endpoints = append(s.Endpoints, discoveryv1.Endpoint{Addresses: []string{a.IP}, Conditions: discoveryv1.EndpointConditions{Ready: &r},
				Hostname: nonEmpty(a.Hostname), NodeName: a.NodeName, TargetRef: a.TargetRef})
		}
		for _, a := range sub.Addresses {
			add(a, true)
		}
		for _, a := range sub.NotReadyAddresses {
			add(a, false)
		}
	}
	return out
}

func nonEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// sameContent compares slices by address type, ports and endpoints.
func sameContent(have, want []*discoveryv1.EndpointSlice) bool {
	if len(have) != len(want) {
		return false
	}
	key := func(s *discoveryv1.EndpointSlice) string { return string(s.AddressType) }
	h, w := append([]*discoveryv1.EndpointSlice(nil), have...), append([]*discoveryv1.EndpointSlice(nil), want...)
	sort.Slice(h, func(i, j int) bool { return key(h[i]) < key(h[j]) })
	sort.Slice(w, func(i, j int) bool { return key(w[i]) < key(w[j]) })
	for i := range h {
		if h[i].AddressType != w[i].AddressType || !reflect.DeepEqual(h[i].Ports, w[i].Ports) || !reflect.DeepEqual(h[i].Endpoints, w[i].Endpoints) {
			return false
		}
	}
	return true
}

// Run processes the queue with workers until ctx ends.
func (c *Controller) Run(ctx context.Context, workers int) {
	worker.Run(ctx, c.queue, workers, c.syncKey, c.synced...)
}

func (c *Controller) syncKey(ctx context.Context, key string) (time.Duration, error) {
	return 0, c.sync(ctx, key)
}
