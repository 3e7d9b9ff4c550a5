package rootcacertpublisher

import (
	"context"
	"maps"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	informers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/kubernetes"
	listers "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"

	"github.com/svcplane/svcplane/internal/controller/worker"
)

// Upstream's names and text (pkg/controller/certificates/rootcacertpublisher).
const (
	ConfigMapName         = "kube-root-ca.crt"
	DataKey               = "ca.crt"
	DescriptionAnnotation = "kubernetes.io/description"
	Description           = "Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubernetes.default.svc. " +
		"No other usage is guaranteed across distributions of Kubernetes clusters."
)

// Controller publishes the root CA bundle into every namespace.
type Controller struct {
	client     kubernetes.Interface
	rootCA     []byte
	configMaps listers.ConfigMapLister
	synced     []cache.InformerSynced
	queue      workqueue.TypedRateLimitingInterface[string]
}

// New returns a controller publishing rootCA (PEM).
func New(client kubernetes.Interface, namespaces informers.NamespaceInformer, configMaps informers.ConfigMapInformer, rootCA []byte) *Controller {
	c := &Controller{
		client: client, rootCA: rootCA, configMaps: configMaps.Lister(),
		synced: []cache.InformerSynced{namespaces.Informer().HasSynced, configMaps.Informer().HasSynced},
		queue:  worker.NewQueue[string]("root_ca_cert_publisher"),
	}
	_, _ = namespaces.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj interface{}) {
			if ns, ok := obj.(*corev1.Namespace); ok {
				c.queue.Add(ns.Name)
			}
		},
		UpdateFunc: func(_, obj interface{}) {
			if ns, ok := obj.(*corev1.Namespace); ok && ns.Status.Phase == corev1.NamespaceActive {
				c.queue.Add(ns.Name)
			}
		},
	})
	_, _ = configMaps.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		UpdateFunc: func(_, obj interface{}) { c.enqueueConfigMap(obj) },
		DeleteFunc: c.enqueueConfigMap,
	})
	return c
}

func (c *Controller) enqueueConfigMap(obj interface{}) {
	if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = t.Obj
	}
	if cm, ok := obj.(*corev1.ConfigMap); ok && cm.Name == ConfigMapName {
		c.queue.Add(cm.Namespace)
	}
}

// Run processes the queue with workers until ctx ends.
func (c *Controller) Run(ctx context.Context, workers int) {
	worker.Run(ctx, c.queue, workers, c.syncKey, c.synced...)
}

func (c *Controller) syncKey(ctx context.Context, key string) (time.Duration, error) {
	return 0, c.sync(ctx, key)
}

// sync creates or rewrites the ConfigMap of one namespace.
func (c *Controller) sync(ctx context.Context, namespace string) error {
	data := map[string]string{DataKey: string(c.rootCA)}
	cm, err := c.configMaps.ConfigMaps(namespace).Get(ConfigMapName)
	if apierrors.IsNotFound(err) {
		_, err = c.client.CoreV1().ConfigMaps(namespace).Create(ctx, &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Name: ConfigMapName, Annotations: map[string]string{DescriptionAnnotation: Description}},
			Data:       data,
		}, metav1.CreateOptions{})
		if apierrors.IsNotFound(err) || apierrors.HasStatusCause(err, corev1.NamespaceTerminatingCause) {
			return nil
		}
		return err
	}
	if err != nil {
		return err
	}
	if maps.Equal(cm.Data, data) && cm.Annotations[DescriptionAnnotation] != "" {
		return nil
	}
	cm = cm.DeepCopy()
	cm.Data = data
	if cm.Annotations == nil {
		cm.Annotations = map[string]string{}
	}
	cm.Annotations[DescriptionAnnotation] = Description
	_, err = c.client.CoreV1().ConfigMaps(namespace).Update(ctx, cm, metav1.UpdateOptions{})
	return err
}
