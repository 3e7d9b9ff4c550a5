package mirroring

import (
	"context"
	"fmt"
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
	return c.apply(ctx, ns, existing, want)
}

// apply turns the existing slices into want: pairs keep their names and
// are updated in place (proxies see a change, not a delete and an add),
// surplus slices are deleted and missing ones created.
func (c *Controller) apply(ctx context.Context, ns string, existing, want []*discoveryv1.EndpointSlice) error {
	api := c.client.DiscoveryV1().EndpointSlices(ns)
	existing, want = sortedByType(existing), sortedByType(want)
	for i, s := range want {
		if i >= len(existing) {
			if _, err := api.Create(ctx, s, metav1.CreateOptions{}); err != nil {
				return err
			}
			continue
		}
		if sameSlice(existing[i], s) {
			continue
		}
		upd := existing[i].DeepCopy()
		upd.Labels, upd.OwnerReferences = s.Labels, s.OwnerReferences
		upd.AddressType, upd.Ports, upd.Endpoints = s.AddressType, s.Ports, s.Endpoints
		if upd.AddressType != existing[i].AddressType { // immutable: replace
			if err := api.Delete(ctx, existing[i].Name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
				return err
			}
			if _, err := api.Create(ctx, s, metav1.CreateOptions{}); err != nil {
				return err
			}
			continue
		}
		if _, err := api.Update(ctx, upd, metav1.UpdateOptions{}); err != nil {
			return err
		}
	}
	for _, s := range existing[min(len(want), len(existing)):] {
		if err := api.Delete(ctx, s.Name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
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

// sortedByType returns a copy of slices in a stable order: address type,
// then first port and first address.
func sortedByType(slices []*discoveryv1.EndpointSlice) []*discoveryv1.EndpointSlice {
	out := append([]*discoveryv1.EndpointSlice(nil), slices...)
	key := func(s *discoveryv1.EndpointSlice) string {
		k := string(s.AddressType)
		if len(s.Ports) > 0 && s.Ports[0].Port != nil {
			k += fmt.Sprintf("/%05d", *s.Ports[0].Port)
		}
		if len(s.Endpoints) > 0 && len(s.Endpoints[0].Addresses) > 0 {
			k += "/" + s.Endpoints[0].Addresses[0]
		}
		return k
	}
	sort.SliceStable(out, func(i, j int) bool { return key(out[i]) < key(out[j]) })
	return out
}

func sameSlice(a, b *discoveryv1.EndpointSlice) bool {
	return a.AddressType == b.AddressType && reflect.DeepEqual(a.Ports, b.Ports) && reflect.DeepEqual(a.Endpoints, b.Endpoints)
}

// sameContent compares slices by address type, ports and endpoints.
func sameContent(have, want []*discoveryv1.EndpointSlice) bool {
	if len(have) != len(want) {
		return false
	}
	h, w := sortedByType(have), sortedByType(want)
	for i := range h {
		if !sameSlice(h[i], w[i]) {
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
