package dns

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
)

// Feed keeps x equal to the cluster's Services and EndpointSlices and
// returns once both informers have synced (or ctx ends). Objects are kept
// without managedFields.
func Feed(ctx context.Context, client kubernetes.Interface, x *Index) error {
	f := informers.NewSharedInformerFactoryWithOptions(client, 0, informers.WithTransform(dropManagedFields))
	svcs := f.Core().V1().Services().Informer()
	slices := f.Discovery().V1().EndpointSlices().Informer()
	r1, err := svcs.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(o any) { x.SetService(o.(*corev1.Service)) },
		UpdateFunc: func(_, o any) { x.SetService(o.(*corev1.Service)) },
		DeleteFunc: func(o any) {
			if s, ok := tombstone[*corev1.Service](o); ok {
				x.DeleteService(s.Namespace, s.Name)
			}
		},
	})
	if err != nil {
		return err
	}
	r2, err := slices.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(o any) { x.SetEndpointSlice(o.(*discoveryv1.EndpointSlice)) },
		UpdateFunc: func(_, o any) { x.SetEndpointSlice(o.(*discoveryv1.EndpointSlice)) },
		DeleteFunc: func(o any) {
			if s, ok := tombstone[*discoveryv1.EndpointSlice](o); ok {
				x.DeleteEndpointSlice(s)
			}
		},
	})
	if err != nil {
		return err
	}
	f.Start(ctx.Done())
	if !cache.WaitForCacheSync(ctx.Done(), r1.HasSynced, r2.HasSynced) {
		return fmt.Errorf("DNS informers did not sync: %w", ctx.Err())
	}
	return nil
}

// tombstone unwraps a deleted object.
func tombstone[T any](o any) (T, bool) {
	if d, ok := o.(cache.DeletedFinalStateUnknown); ok {
		o = d.Obj
	}
	t, ok := o.(T)
	return t, ok
}

func dropManagedFields(o any) (any, error) {
	if m, err := meta.Accessor(o); err == nil {
		m.SetManagedFields(nil)
	}
	return o, nil
}
