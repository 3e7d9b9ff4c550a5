package podservices

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
)

// Keys returns the namespace/name keys of the Services in the pod's
// namespace whose selector matches it. obj may be a pod or a tombstone of
// one; anything else matches nothing.
func Keys(services corelisters.ServiceLister, obj interface{}) []string {
	if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = t.Obj
	}
	pod, ok := obj.(*corev1.Pod)
	if !ok {
		return nil
	}
	svcs, err := services.Services(pod.Namespace).List(labels.Everything())
	if err != nil {
		return nil
	}
	var keys []string
	for _, s := range svcs {
		if s.Spec.Selector != nil && labels.SelectorFromValidatedSet(s.Spec.Selector).Matches(labels.Set(pod.Labels)) {
			keys = append(keys, pod.Namespace+"/"+s.Name)
		}
	}
	return keys
}
