package replicaset

import (
	"context"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	appsinformers "k8s.io/client-go/informers/apps/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
)

// Kind is what the controller needs of the kind whose pods it keeps: the
// ReplicaSet itself, or a kind with the same semantics seen as ReplicaSets
// (ReplicationControllers, as upstream's replication controller runs the
// ReplicaSet controller through a conversion).
type Kind struct {
	// GVK is the owner reference's kind (and the queue's name, lower-cased).
	GVK schema.GroupVersionKind
	// Informer is the owners' informer: its events enqueue namespace/name.
	Informer cache.SharedIndexInformer
	// Get and List read owners from the informer's cache, as ReplicaSets
	// (copies or converted views; the controller never changes them).
	Get  func(namespace, name string) (*appsv1.ReplicaSet, error)
	List func(namespace string) ([]*appsv1.ReplicaSet, error)
	// UpdateStatus writes rs.Status to the owner named by rs.
	UpdateStatus func(ctx context.Context, rs *appsv1.ReplicaSet) error
}

// ReplicaSetKind is the apps/v1 ReplicaSet.
func ReplicaSetKind(client kubernetes.Interface, sets appsinformers.ReplicaSetInformer) Kind {
	lister := sets.Lister()
	return Kind{
		GVK:      appsv1.SchemeGroupVersion.WithKind("ReplicaSet"),
		Informer: sets.Informer(),
		Get:      func(ns, name string) (*appsv1.ReplicaSet, error) { return lister.ReplicaSets(ns).Get(name) },
		List: func(ns string) ([]*appsv1.ReplicaSet, error) {
			return lister.ReplicaSets(ns).List(labels.Everything())
		},
		UpdateStatus: func(ctx context.Context, rs *appsv1.ReplicaSet) error {
			_, err := client.AppsV1().ReplicaSets(rs.Namespace).UpdateStatus(ctx, rs, metav1.UpdateOptions{})
			return err
		},
	}
}
