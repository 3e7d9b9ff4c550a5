package servicecidr

import (
	"context"
	"fmt"
	"net/netip"
	"slices"
	"time"

	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	informers "k8s.io/client-go/informers/networking/v1"
	"k8s.io/client-go/kubernetes"
	listers "k8s.io/client-go/listers/networking/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/clock"

	"github.com/svcplane/svcplane/internal/controller/worker"
)

// Finalizer keeps a ServiceCIDR while IPAddresses need it.
const Finalizer = "networking.k8s.io/service-cidr-finalizer"

// DeletionGracePeriod is how long after its deletion a ServiceCIDR that no
// IPAddress needs keeps its finalizer, as upstream's controller: the
// allocators, and this controller's IPAddress informer, may not yet have
// seen the deletion or an IPAddress just allocated from it.
const DeletionGracePeriod = 10 * time.Second

// Condition reasons, as upstream.
const (
	ReasonTerminating = "Terminating"
	ReasonReady       = "ServiceCIDRReady"
)

// Controller keeps ServiceCIDR finalizers and conditions.
type Controller struct {
	client    kubernetes.Interface
	cidrs     listers.ServiceCIDRLister
	addresses listers.IPAddressLister
	synced    []cache.InformerSynced
	queue     workqueue.TypedRateLimitingInterface[string]
	clock     clock.PassiveClock
}

// New returns a controller fed by the given informers; clk times the
// deletion grace period.
func New(client kubernetes.Interface, cidrs informers.ServiceCIDRInformer, addresses informers.IPAddressInformer, clk clock.PassiveClock) *Controller {
	c := &Controller{
		client: client, cidrs: cidrs.Lister(), addresses: addresses.Lister(), clock: clk,
		synced: []cache.InformerSynced{cidrs.Informer().HasSynced, addresses.Informer().HasSynced},
		queue:  worker.NewQueue[string]("servicecidrs"),
	}
	enqueue := func(obj interface{}) {
		if key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj); err == nil {
			c.queue.Add(key)
		}
	}
	_, _ = cidrs.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: enqueue, UpdateFunc: func(_, obj interface{}) { enqueue(obj) }, DeleteFunc: enqueue,
	})
	// An IPAddress going away may let a terminating ServiceCIDR go.
	_, _ = addresses.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		DeleteFunc: func(interface{}) { c.enqueueTerminating() },
	})
	return c
}

func (c *Controller) enqueueTerminating() {
	all, _ := c.cidrs.List(labels.Everything())
	for _, sc := range all {
		if sc.DeletionTimestamp != nil {
			c.queue.Add(sc.Name)
		}
	}
}

// sync converges one ServiceCIDR.
func (c *Controller) sync(ctx context.Context, name string) error {
	sc, err := c.cidrs.Get(name)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if sc.DeletionTimestamp == nil {
		if !slices.Contains(sc.Finalizers, Finalizer) {
			sc = sc.DeepCopy()
			sc.Finalizers = append(sc.Finalizers, Finalizer)
			if sc, err = c.client.NetworkingV1().ServiceCIDRs().Update(ctx, sc, metav1.UpdateOptions{}); err != nil {
				return err
			}
		}
		return c.setReady(ctx, sc, metav1.ConditionTrue, ReasonReady, "Kubernetes Service CIDR is ready")
	}
	if !slices.Contains(sc.Finalizers, Finalizer) {
		return nil
	}
	if orphans := c.orphans(sc); orphans > 0 {
		c.queue.AddAfter(name, 5*time.Second)
		return c.setReady(ctx, sc, metav1.ConditionFalse, ReasonTerminating,
			fmt.Sprintf("There are still %d IPAddresses referencing the ServiceCIDR, please remove them or create a new ServiceCIDR", orphans))
	}
	if wait := DeletionGracePeriod - c.clock.Since(sc.DeletionTimestamp.Time); wait > 0 {
		c.queue.AddAfter(name, wait)
		return nil
	}
	sc = sc.DeepCopy()
	sc.Finalizers = slices.DeleteFunc(sc.Finalizers, func(f string) bool { return f == Finalizer })
	_, err = c.client.NetworkingV1().ServiceCIDRs().Update(ctx, sc, metav1.UpdateOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}

// orphans counts the IPAddresses inside sc that no other live ServiceCIDR
// covers.
func (c *Controller) orphans(sc *networkingv1.ServiceCIDR) int {
	mine := prefixes(sc)
	var others []netip.Prefix
	all, _ := c.cidrs.List(labels.Everything())
	for _, o := range all {
		if o.Name != sc.Name && o.DeletionTimestamp == nil {
			others = append(others, prefixes(o)...)
		}
	}
	ips, _ := c.addresses.List(labels.Everything())
	n := 0
	for _, ipa := range ips {
		ip, err := netip.ParseAddr(ipa.Name)
		if err == nil && within(ip, mine) && !within(ip, others) {
			n++
		}
	}
	return n
}

func (c *Controller) setReady(ctx context.Context, sc *networkingv1.ServiceCIDR, status metav1.ConditionStatus, reason, msg string) error {
	cur := meta.FindStatusCondition(sc.Status.Conditions, networkingv1.ServiceCIDRConditionReady)
	if cur != nil && cur.Status == status && (status == metav1.ConditionTrue || cur.Message == msg) {
		return nil
	}
	sc = sc.DeepCopy()
	meta.SetStatusCondition(&sc.Status.Conditions, metav1.Condition{
		Type: networkingv1.ServiceCIDRConditionReady, Status: status, Reason: reason, Message: msg,
	})
	_, err := c.client.NetworkingV1().ServiceCIDRs().UpdateStatus(ctx, sc, metav1.UpdateOptions{})
	return err
}

func prefixes(sc *networkingv1.ServiceCIDR) []netip.Prefix {
	var out []netip.Prefix
	for _, s := range sc.Spec.CIDRs {
		if p, err := netip.ParsePrefix(s); err == nil {
			out = append(out, p.Masked())
		}
	}
	return out
}

func within(ip netip.Addr, ps []netip.Prefix) bool {
	for _, p := range ps {
		if p.Contains(ip) {
			return true
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
