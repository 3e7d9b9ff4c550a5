package dns

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
)

// Feed keeps x equal to the cluster's Services and EndpointSlices and
// returns once both informers have synced (or ctx ends). The informers
// keep only the fields the records need (minimal), a fraction of each
// object; the EndpointSlices' store holds the index's compact slices.
func Feed(ctx context.Context, client kubernetes.Interface, x *Index) error {
	f := informers.NewSharedInformerFactoryWithOptions(client, 0, informers.WithTransform(minimal))
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
		AddFunc:    func(o any) { x.setSlice(o.(*slice)) },
		UpdateFunc: func(_, o any) { x.setSlice(o.(*slice)) },
		DeleteFunc: func(o any) {
			if s, ok := tombstone[*slice](o); ok {
				x.deleteSlice(s)
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

// minimal reduces a Service to what the Index reads (and the informer
// needs: name, namespace, resourceVersion), and an EndpointSlice to the
// index's compact slice.
func minimal(o any) (any, error) {
	switch v := o.(type) {
	case *corev1.Service:
		s := &corev1.Service{ObjectMeta: meta(v.ObjectMeta), Spec: corev1.ServiceSpec{Type: v.Spec.Type,
			ClusterIP: v.Spec.ClusterIP, ClusterIPs: v.Spec.ClusterIPs, ExternalName: v.Spec.ExternalName,
			PublishNotReadyAddresses: v.Spec.PublishNotReadyAddresses}}
		if a, ok := v.Annotations[tolerateUnreadyAnnotation]; ok {
			s.Annotations = map[string]string{tolerateUnreadyAnnotation: a}
		}
		for _, p := range v.Spec.Ports {
			s.Spec.Ports = append(s.Spec.Ports, corev1.ServicePort{Name: p.Name, Protocol: p.Protocol, Port: p.Port})
		}
		return s, nil
	case *discoveryv1.EndpointSlice:
		return compactSlice(v), nil
	}
	return o, nil
}

func meta(m metav1.ObjectMeta) metav1.ObjectMeta {
	return metav1.ObjectMeta{Name: m.Name, Namespace: m.Namespace, ResourceVersion: m.ResourceVersion, UID: m.UID}
}
