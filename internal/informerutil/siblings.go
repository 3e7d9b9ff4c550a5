package informerutil

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/svcplane/svcplane/internal/objshare"
)

// ShareSiblings returns a cache.TransformFunc that applies transform and
// then makes each pod share memory with the last pod of its objshare.Group
// the informer received (a ReplicaSet's pods, a namespace's bare pods: the
// same spec, decoded each in its own copy). Values are unchanged. Only
// objects no one else holds reach a transform (client-go skips it for
// resyncs and tombstones), and the informer's cache is read-only to its
// users, which is what makes the sharing safe. Each call returns a
// transform with its own memory of siblings, for one factory (which has
// one pods informer) or one informer.
func ShareSiblings(transform cache.TransformFunc) cache.TransformFunc {
	pods := objshare.NewSiblings[corev1.Pod]()
	return func(obj any) (any, error) {
		obj, err := transform(obj)
		if err != nil {
			return obj, err
		}
		if pod, ok := obj.(*corev1.Pod); ok {
			pods.Share(pod, objshare.GroupOf(pod))
		}
		return obj, nil
	}
}
