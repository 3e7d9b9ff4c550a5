package repair

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	networkinglisters "k8s.io/client-go/listers/networking/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	"github.com/svcplane/svcplane/internal/allocator/ipallocator"
)

// OrphanController frees an IPAddress whose Service is gone as soon as the
// IPAddress is OrphanGracePeriod old, as kube-apiserver's IPAddress repair
// does, instead of waiting for Threshold periodic passes: it looks at an
// IPAddress when it appears and when its Service is deleted, and again
// when its grace period ends. So a ClusterIP leaked by a crash between the
// IPAddress write and the Service write is reusable 60 s after it was
// taken, and a Service whose etcd key vanished frees its IP at once.
//
// It reads a Service from storage only when its IPAddress is old enough to
// free and the Service cache does not show the Service holding it: the
// common case (a create: the IPAddress is written just before its
// Service) costs no API request, where one read per created Service
// cost the Service create path about a fifth of its requests.
type OrphanController struct {
	client   kubernetes.Interface
	lister   networkinglisters.IPAddressLister
	services corelisters.ServiceLister
	synced   cache.InformerSynced
	// servicesSynced: the Service cache has been filled once.
	servicesSynced cache.InformerSynced
	queue          workqueue.TypedDelayingInterface[string]
	clock          clock.PassiveClock
	recorder       Recorder
}

// NewOrphanController watches f's Services and IPAddresses (start f after).
func NewOrphanController(client kubernetes.Interface, f informers.SharedInformerFactory, rec Recorder, clk clock.WithTicker) *OrphanController {
	c := &OrphanController{
		client:         client,
		lister:         f.Networking().V1().IPAddresses().Lister(),
		services:       f.Core().V1().Services().Lister(),
		synced:         f.Networking().V1().IPAddresses().Informer().HasSynced,
		servicesSynced: f.Core().V1().Services().Informer().HasSynced,
		queue:          workqueue.NewTypedDelayingQueueWithConfig(workqueue.TypedDelayingQueueConfig[string]{Name: "ipaddress-orphans", Clock: clk}),
		clock:          clk,
		recorder:       rec,
	}
	_, _ = f.Networking().V1().IPAddresses().Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj interface{}) {
			if ip, ok := obj.(*networkingv1.IPAddress); ok {
				c.queue.Add(ip.Name)
			}
		},
	})
	_, _ = f.Core().V1().Services().Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		DeleteFunc: func(obj interface{}) {
			if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj = t.Obj
			}
			if svc, ok := obj.(*corev1.Service); ok {
				for _, ip := range serviceIPs(svc) {
					c.queue.Add(ip.String())
				}
			}
		},
	})
	return c
}

// Run checks queued IPAddresses until ctx ends.
func (c *OrphanController) Run(ctx context.Context) {
	defer utilruntime.HandleCrash()
	go func() {
		<-ctx.Done()
		c.queue.ShutDown()
	}()
	if !cache.WaitForCacheSync(ctx.Done(), c.synced, c.servicesSynced) {
		return
	}
	for c.processNextWorkItem(ctx) {
	}
}

func (c *OrphanController) processNextWorkItem(ctx context.Context) bool {
	name, quit := c.queue.Get()
	if quit {
		return false
	}
	defer c.queue.Done(name)
	retry, err := c.sync(ctx, name)
	if err != nil {
		klog.V(2).InfoS("Unable to check an IPAddress for a leak; retrying", "ipaddress", name, "err", err)
		retry = time.Second
	}
	if retry > 0 {
		c.queue.AddAfter(name, retry)
	}
	return true
}

// sync deletes name if it is a leaked allocation old enough to free, or
// says when to look again.
func (c *OrphanController) sync(ctx context.Context, name string) (time.Duration, error) {
	ip, err := c.lister.Get(name)
	if apierrors.IsNotFound(err) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	p := ip.Spec.ParentRef
	if ip.Labels[ipallocator.LabelManagedBy] != ipallocator.ManagedByService || p == nil || p.Resource != "services" || p.Group != "" {
		return 0, nil
	}
	// The cache showing the Service holding name settles it (a Service
	// holds its ClusterIPs until it is deleted, which requeues name).
	if svc, err := c.services.Services(p.Namespace).Get(p.Name); err == nil && holdsIP(svc, name) {
		return 0, nil
	}
	age := c.clock.Since(ip.CreationTimestamp.Time)
	if age <= OrphanGracePeriod {
		// A create or type change in flight writes the IPAddress first.
		return OrphanGracePeriod - age + time.Millisecond, nil
	}
	// Before freeing: the Service from storage, not a cache that may lag.
	svc, err := c.client.CoreV1().Services(p.Namespace).Get(ctx, p.Name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
	case err != nil:
		return 0, err
	case holdsIP(svc, name):
		return 0, nil
	}
	c.recorder.Warn(ip, "IPAddressNotAllocated", fmt.Sprintf("IPAddress: %s for Service %s/%s appears to have leaked: cleaning up", name, p.Namespace, p.Name))
	err = c.client.NetworkingV1().IPAddresses().Delete(ctx, name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &ip.UID}})
	if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
		return 0, err
	}
	return 0, nil
}

// holdsIP says whether svc has ip among its ClusterIPs.
func holdsIP(svc *corev1.Service, ip string) bool {
	for _, s := range svc.Spec.ClusterIPs {
		if s == ip {
			return true
		}
	}
	return false
}
