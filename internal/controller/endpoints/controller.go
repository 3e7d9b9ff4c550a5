package endpoints

import (
	"context"
	"fmt"
	"reflect"
	"sort"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	coreinformers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	esreconciler "k8s.io/endpointslice"
	esutil "k8s.io/endpointslice/util"
	utilnet "k8s.io/utils/net"

	"github.com/svcplane/svcplane/internal/controller/podservices"
	"github.com/svcplane/svcplane/internal/controller/worker"
)

// MaxCapacity and the annotation marking a truncated Endpoints object.
const (
	MaxCapacity            = 1000
	OverCapacityAnnotation = "endpoints.kubernetes.io/over-capacity"
)

// Controller writes Endpoints objects for selector Services.
type Controller struct {
	client    kubernetes.Interface
	services  corelisters.ServiceLister
	pods      corelisters.PodLister
	endpoints corelisters.EndpointsLister
	synced    []cache.InformerSynced
	queue     workqueue.TypedRateLimitingInterface[string]
}

// New returns a controller fed by the given informers.
func New(client kubernetes.Interface, services coreinformers.ServiceInformer, pods coreinformers.PodInformer, endpoints coreinformers.EndpointsInformer) *Controller {
	c := &Controller{client: client, services: services.Lister(), pods: pods.Lister(), endpoints: endpoints.Lister(),
		synced: []cache.InformerSynced{services.Informer().HasSynced, pods.Informer().HasSynced, endpoints.Informer().HasSynced},
		queue:  worker.NewQueue[string]("endpoint")}
	enqueue := func(obj interface{}) {
		if key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj); err == nil {
			c.queue.Add(key)
		}
	}
	_, _ = services.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: enqueue, UpdateFunc: func(_, obj interface{}) { enqueue(obj) }, DeleteFunc: enqueue,
	})
	podChanged := func(obj interface{}) {
		for _, key := range podservices.Keys(c.services, obj) {
			c.queue.Add(key)
		}
	}
	_, _ = pods.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: podChanged, UpdateFunc: func(old, obj interface{}) { podChanged(old); podChanged(obj) }, DeleteFunc: podChanged,
	})
	return c
}

func (c *Controller) sync(ctx context.Context, key string) error {
	ns, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return err
	}
	svc, err := c.services.Services(ns).Get(name)
	if apierrors.IsNotFound(err) {
		err := c.client.CoreV1().Endpoints(ns).Delete(ctx, name, metav1.DeleteOptions{})
		if apierrors.IsNotFound(err) {
			return nil
		}
		return err
	}
	if err != nil || svc.Spec.Selector == nil {
		return err
	}
	pods, err := c.pods.Pods(ns).List(labels.SelectorFromValidatedSet(svc.Spec.Selector))
	if err != nil {
		return err
	}
	subsets, truncated := subsetsFor(svc, pods)
	cur, err := c.endpoints.Endpoints(ns).Get(name)
	exists := err == nil
	if err != nil && !apierrors.IsNotFound(err) {
		return err
	}
	want := &corev1.Endpoints{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: labelsFor(svc)}, Subsets: subsets}
	if truncated {
		want.Annotations = map[string]string{OverCapacityAnnotation: "truncated"}
	}
	if exists {
		if reflect.DeepEqual(cur.Subsets, want.Subsets) && reflect.DeepEqual(cur.Labels, want.Labels) &&
			cur.Annotations[OverCapacityAnnotation] == want.Annotations[OverCapacityAnnotation] {
			return nil
		}
		upd := cur.DeepCopy()
		upd.Subsets, upd.Labels = want.Subsets, want.Labels
		if upd.Annotations == nil {
			upd.Annotations = map[string]string{}
		}
		delete(upd.Annotations, OverCapacityAnnotation)
		for k, v := range want.Annotations {
			upd.Annotations[k] = v
		}
		_, err = c.client.CoreV1().Endpoints(ns).Update(ctx, upd, metav1.UpdateOptions{})
		return err
	}
	_, err = c.client.CoreV1().Endpoints(ns).Create(ctx, want, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		return nil
	}
	return err
}

// labelsFor copies the Service's labels, marking headless Services.
func labelsFor(svc *corev1.Service) map[string]string {
	out := map[string]string{}
	for k, v := range svc.Labels {
		out[k] = v
	}
	if svc.Spec.ClusterIP == corev1.ClusterIPNone {
		out[corev1.IsHeadlessService] = ""
	}
	return out
}

// subsetsFor groups pod addresses by their resolved ports, ready ones apart
// from unready ones, capped at MaxCapacity addresses (ready first).
func subsetsFor(svc *corev1.Service, pods []*corev1.Pod) ([]corev1.EndpointSubset, bool) {
	type group struct {
		ports           []corev1.EndpointPort
		ready, notReady []corev1.EndpointAddress
	}
	groups := map[string]*group{}
	var order []string
	total := 0
	for _, pod := range pods {
		if !esutil.ShouldPodBeInEndpoints(pod, svc.Spec.PublishNotReadyAddresses) {
			continue
		}
		ip := addressFor(svc, pod)
		if ip == "" {
			continue // no IP of the Service's family (a single-stack pod on a dual-stack cluster)
		}
		var ports []corev1.EndpointPort
		for i := range svc.Spec.Ports {
			sp := &svc.Spec.Ports[i]
			if port, err := esreconciler.FindPort(pod, sp); err == nil {
				ports = append(ports, corev1.EndpointPort{Name: sp.Name, Port: int32(port), Protocol: sp.Protocol, AppProtocol: sp.AppProtocol})
			}
		}
		if len(ports) == 0 && len(svc.Spec.Ports) > 0 {
			continue
		}
		key := portsKey(ports)
		g := groups[key]
		if g == nil {
			g = &group{ports: ports}
			groups[key] = g
			order = append(order, key)
		}
		addr := corev1.EndpointAddress{IP: ip, NodeName: nodeName(pod),
			TargetRef: &corev1.ObjectReference{Kind: "Pod", Namespace: pod.Namespace, Name: pod.Name, UID: pod.UID}}
		if esutil.ShouldSetHostname(pod, svc) {
			addr.Hostname = pod.Spec.Hostname
		}
		if svc.Spec.PublishNotReadyAddresses || podReady(pod) {
			g.ready = append(g.ready, addr)
		} else {
			g.notReady = append(g.notReady, addr)
		}
		total++
	}
	sort.Strings(order)
	budget, truncated := MaxCapacity, total > MaxCapacity
	var subsets []corev1.EndpointSubset
	for _, k := range order {
		g := groups[k]
		byIP := func(a []corev1.EndpointAddress) { sort.Slice(a, func(i, j int) bool { return a[i].IP < a[j].IP }) }
		byIP(g.ready)
		byIP(g.notReady)
		ready := g.ready[:min(len(g.ready), budget)]
		budget -= len(ready)
		notReady := g.notReady[:min(len(g.notReady), budget)]
		budget -= len(notReady)
		if len(ready)+len(notReady) > 0 {
			s := corev1.EndpointSubset{Ports: g.ports}
			if len(ready) > 0 {
				s.Addresses = ready
			}
			if len(notReady) > 0 {
				s.NotReadyAddresses = notReady
			}
			subsets = append(subsets, s)
		}
	}
	return subsets, truncated
}

// addressFor is the pod's IP of the Service's family, as upstream's
// podToEndpointAddressForService: the family is spec.ipFamilies[0] (else
// that of the ClusterIP, else of the pod's first IP; IPv4 when none
// says), the address the first of status.podIPs in it, re-written in
// canonical form; "" when the pod has none.
func addressFor(svc *corev1.Service, pod *corev1.Pod) string {
	family := corev1.IPv4Protocol
	switch {
	case len(svc.Spec.IPFamilies) > 0:
		family = svc.Spec.IPFamilies[0]
	case svc.Spec.ClusterIP != "" && svc.Spec.ClusterIP != corev1.ClusterIPNone:
		if utilnet.IsIPv6String(svc.Spec.ClusterIP) {
			family = corev1.IPv6Protocol
		}
	case utilnet.IsIPv6String(pod.Status.PodIP):
		family = corev1.IPv6Protocol
	}
	wantIPv6 := family == corev1.IPv6Protocol
	for _, podIP := range pod.Status.PodIPs {
		ip := utilnet.ParseIPSloppy(podIP.IP)
		if ip != nil && wantIPv6 == utilnet.IsIPv6(ip) {
			return ip.String()
		}
	}
	return ""
}

func portsKey(ports []corev1.EndpointPort) string {
	s := ""
	for _, p := range ports {
		s += fmt.Sprintf("%s/%s/%d;", p.Name, p.Protocol, p.Port)
	}
	return s
}

func nodeName(p *corev1.Pod) *string {
	if p.Spec.NodeName == "" {
		return nil
	}
	n := p.Spec.NodeName
	return &n
}

func podReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// Run processes the queue with workers until ctx ends.
func (c *Controller) Run(ctx context.Context, workers int) {
	worker.Run(ctx, c.queue, workers, c.syncKey, c.synced...)
}

func (c *Controller) syncKey(ctx context.Context, key string) (time.Duration, error) {
	return 0, c.sync(ctx, key)
}
