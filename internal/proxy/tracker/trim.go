package tracker

import (
	v1 "k8s.io/api/core/v1"
	discovery "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
)

// transformFor is the informers' cache.TransformFunc for the proxy of node
// nodeName: it keeps of each object only what the tracker reads, so the
// informer caches (one copy of every Service and EndpointSlice, beside
// the tracker's converted state) stay small.
//   - every object: no metadata.managedFields;
//   - Service: no annotations or labels (the proxy's label selector is
//     applied by the server; ServicePorts reads neither);
//   - EndpointSlice: converted into a Slice, whose endpoints the tracker
//     then holds as they are: the cache and the tracker share one copy;
//   - Node: no status.images.
//
// Objects arrive freshly decoded from the watch or list and are owned by
// the informer, so they are trimmed in place. A Slice passes through: the
// transform may see an object twice.
func transformFor(nodeName string) cache.TransformFunc {
	return func(obj any) (any, error) {
		if es, ok := obj.(*discovery.EndpointSlice); ok {
			return NewSlice(es, nodeName), nil
		}
		if m, ok := obj.(metav1.Object); ok {
			m.SetManagedFields(nil)
		}
		switch o := obj.(type) {
		case *v1.Service:
			o.Annotations, o.Labels = nil, nil
		case *v1.Node:
			o.Status.Images = nil
		}
		return obj, nil
	}
}
