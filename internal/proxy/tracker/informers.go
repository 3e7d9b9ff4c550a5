package tracker

import (
	"context"
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
)

// proxyLabelSelector is kube-proxy's: skip Services (and their slices) that
// another proxy implementation owns and headless ones.
const proxyLabelSelector = "!service.kubernetes.io/service-proxy-name,!service.kubernetes.io/headless"

// Options select what Start watches.
type Options struct {
	// ResyncPeriod of the informers (0 = none).
	ResyncPeriod time.Duration
	// WatchServiceCIDRs adds a networking.k8s.io/v1 ServiceCIDR informer.
	WatchServiceCIDRs bool
}

// Start registers informers for Services, EndpointSlices, the own Node and
// (optionally) ServiceCIDRs, starts them and waits for their caches.
func (t *Tracker) Start(ctx context.Context, client kubernetes.Interface, opts Options) error {
	return StartAll(ctx, client, opts, t)
}

// StartAll feeds several trackers (one per IP family, all for the same
// node) from one set of informers, so a dual-stack proxy watches each
// object once.
func StartAll(ctx context.Context, client kubernetes.Interface, opts Options, trackers ...*Tracker) error {
	if len(trackers) == 0 {
		return nil
	}
	nodeName := trackers[0].nodeName
	factory := informers.NewSharedInformerFactoryWithOptions(client, opts.ResyncPeriod, informers.WithTransform(transformFor(nodeName)),
		informers.WithTweakListOptions(func(o *metav1.ListOptions) { o.LabelSelector = proxyLabelSelector }))
	nodeFactory := informers.NewSharedInformerFactoryWithOptions(client, opts.ResyncPeriod, informers.WithTransform(transformFor(nodeName)),
		informers.WithTweakListOptions(func(o *metav1.ListOptions) {
			o.FieldSelector = fields.OneTermEqualSelector("metadata.name", nodeName).String()
		}))
	var regs []cache.ResourceEventHandlerRegistration
	add := func(inf cache.SharedIndexInformer, h cache.ResourceEventHandler) error {
		r, err := inf.AddEventHandler(h)
		regs = append(regs, r)
		return err
	}
	for _, t := range trackers {
		if err := addHandlers(add, factory, nodeFactory, t); err != nil {
			return err
		}
	}
	if opts.WatchServiceCIDRs {
		cidrFactory := informers.NewSharedInformerFactoryWithOptions(client, opts.ResyncPeriod, informers.WithTransform(transformFor(nodeName)))
		for _, t := range trackers {
			if err := add(cidrFactory.Networking().V1().ServiceCIDRs().Informer(), handlers(func(sc *networkingv1.ServiceCIDR, deleted bool) {
				name := sc.Name
				if deleted {
					sc = nil
				}
				t.OnServiceCIDRUpdate(name, sc)
			})); err != nil {
				return err
			}
		}
		cidrFactory.Start(ctx.Done())
	}
	factory.Start(ctx.Done())
	nodeFactory.Start(ctx.Done())
	for _, r := range regs {
		if !cache.WaitForCacheSync(ctx.Done(), r.HasSynced) {
			return fmt.Errorf("informer caches did not sync: %w", ctx.Err())
		}
	}
	return nil
}

func addHandlers(add func(cache.SharedIndexInformer, cache.ResourceEventHandler) error,
	factory, nodeFactory informers.SharedInformerFactory, t *Tracker) error {
	if err := add(factory.Core().V1().Services().Informer(), handlers(func(s *v1.Service, deleted bool) {
		key := types.NamespacedName{Namespace: s.Namespace, Name: s.Name}
		if deleted {
			s = nil
		}
		t.OnServiceUpdate(key, s)
	})); err != nil {
		return err
	}
	if err := add(factory.Discovery().V1().EndpointSlices().Informer(), handlers(t.OnSliceUpdate)); err != nil {
		return err
	}
	return add(nodeFactory.Core().V1().Nodes().Informer(), handlers(func(n *v1.Node, deleted bool) {
		if deleted {
			n = nil
		}
		t.OnNodeUpdate(n)
	}))
}
