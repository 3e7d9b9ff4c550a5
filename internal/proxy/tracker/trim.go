package tracker

import (
	v1 "k8s.io/api/core/v1"
	discovery "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// trimForProxy is the informers' cache.TransformFunc: it keeps of each
// object only what the tracker reads, so the informer caches (one full
// copy of every Service and EndpointSlice, beside the tracker's converted
// state) stay small.
//   - every object: no metadata.managedFields;
//   - Service: no annotations or labels (the proxy's label selector is
//     applied by the server; ServicePorts reads neither);
//   - EndpointSlice: of the labels only kubernetes.io/service-name, of the
//     annotations only endpoints.kubernetes.io/last-change-trigger-time,
//     no owner references; endpoints without hostname, targetRef and
//     deprecatedTopology; the condition pointers shared between endpoints;
//   - Node: no status.images.
//
// Objects arrive freshly decoded from the watch or list and are owned by
// the informer, so they are trimmed in place.
func trimForProxy(obj any) (any, error) {
	if m, ok := obj.(metav1.Object); ok {
		m.SetManagedFields(nil)
	}
	switch o := obj.(type) {
	case *v1.Service:
		o.Annotations, o.Labels = nil, nil
	case *discovery.EndpointSlice:
		trimSlice(o)
	case *v1.Node:
		o.Status.Images = nil
	}
	return obj, nil
}

// sharedTrue and sharedFalse are the conditions of trimmed endpoints;
// nothing writes through them.
var sharedTrue, sharedFalse = func() *bool { b := true; return &b }(), new(bool)

func trimSlice(s *discovery.EndpointSlice) {
	s.Labels = keepKey(s.Labels, discovery.LabelServiceName)
	s.Annotations = keepKey(s.Annotations, v1.EndpointsLastChangeTriggerTime)
	s.OwnerReferences = nil
	for i := range s.Endpoints {
		e := &s.Endpoints[i]
		e.Hostname, e.TargetRef, e.DeprecatedTopology = nil, nil, nil
		e.Conditions.Ready = sharedBool(e.Conditions.Ready)
		e.Conditions.Serving = sharedBool(e.Conditions.Serving)
		e.Conditions.Terminating = sharedBool(e.Conditions.Terminating)
	}
}

// keepKey is m with only key (nil when m does not hold it).
func keepKey(m map[string]string, key string) map[string]string {
	v, ok := m[key]
	if !ok {
		return nil
	}
	if len(m) == 1 {
		return m
	}
	return map[string]string{key: v}
}

// sharedBool is one of two shared pointers with *b's value (nil stays
// nil: an absent condition has its own meaning).
func sharedBool(b *bool) *bool {
	switch {
	case b == nil:
		return nil
	case *b:
		return sharedTrue
	}
	return sharedFalse
}
