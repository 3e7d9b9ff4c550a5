package node

import (
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	coreinformers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
)

// PodRecordInformer returns f's informer of pods kept as PodRecords (one
// per factory, whoever asks first makes it; f must have no transform of
// its own, which would replace the informer's). It is not f's pods
// informer: f.Core().V1().Pods() stays an informer of whole pods.
func PodRecordInformer(f informers.SharedInformerFactory) cache.SharedIndexInformer {
	return f.InformerFor(&PodRecord{}, func(c kubernetes.Interface, resync time.Duration) cache.SharedIndexInformer {
		inf := coreinformers.NewFilteredPodInformer(c, metav1.NamespaceAll, resync, cache.Indexers{}, nil)
		// A new informer has not started: SetTransform cannot fail.
		_ = inf.SetTransform(recordTransform)
		return inf
	})
}

// recordTransform is PodRecordInformer's transform: client-go hands it
// each pod the informer lists or watches.
func recordTransform(obj any) (any, error) {
	if pod, ok := obj.(*corev1.Pod); ok {
		return RecordPod(pod), nil
	}
	return obj, nil
}

// PodRecordLister reads a PodRecordInformer's store.
type PodRecordLister struct{ store cache.Store }

// PodRecords returns the lister of f's PodRecordInformer.
func PodRecords(f informers.SharedInformerFactory) PodRecordLister {
	return PodRecordLister{PodRecordInformer(f).GetStore()}
}

// Get returns the record of pod namespace/name, or a NotFound error as a
// pods lister gives.
func (l PodRecordLister) Get(namespace, name string) (*PodRecord, error) {
	obj, exists, err := l.store.GetByKey(namespace + "/" + name)
	if err != nil {
		return nil, err
	}
	if !exists {
		return nil, apierrors.NewNotFound(corev1.Resource("pod"), name)
	}
	r, ok := obj.(*PodRecord)
	if !ok {
		return nil, fmt.Errorf("pod %s/%s: the informer holds a %T, not a record", namespace, name, obj)
	}
	return r, nil
}
