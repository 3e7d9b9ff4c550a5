package serviceaccount

import (
	"context"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	informers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/kubernetes"
	listers "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"

	"github.com/svcplane/svcplane/internal/controller/worker"
)

// DefaultServiceAccounts are the ServiceAccounts every namespace gets, as
// upstream's DefaultServiceAccountsControllerOptions.
var DefaultServiceAccounts = []string{"default"}

// Controller ensures the ServiceAccounts of every active namespace.
type Controller struct {
	client     kubernetes.Interface
	names      []string
	namespaces listers.NamespaceLister
	accounts   listers.ServiceAccountLister
	synced     []cache.InformerSynced
	queue      workqueue.TypedRateLimitingInterface[string]
}

// New returns a controller ensuring the ServiceAccounts called names in
// every active namespace.
func New(client kubernetes.Interface, namespaces informers.NamespaceInformer, accounts informers.ServiceAccountInformer, names []string) *Controller {
	c := &Controller{
		client: client, names: names,
		namespaces: namespaces.Lister(), accounts: accounts.Lister(),
		synced: []cache.InformerSynced{namespaces.Informer().HasSynced, accounts.Informer().HasSynced},
		queue:  worker.NewQueue[string]("serviceaccount"),
	}
	_, _ = namespaces.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj interface{}) { c.enqueueNamespace(obj) },
		UpdateFunc: func(_, obj interface{}) { c.enqueueNamespace(obj) },
	})
	_, _ = accounts.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		DeleteFunc: c.accountDeleted,
	})
	return c
}

func (c *Controller) enqueueNamespace(obj interface{}) {
	if ns, ok := obj.(*corev1.Namespace); ok {
		c.queue.Add(ns.Name)
	}
}

func (c *Controller) accountDeleted(obj interface{}) {
	if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = t.Obj
	}
	if sa, ok := obj.(*corev1.ServiceAccount); ok {
		c.queue.Add(sa.Namespace)
	}
}

// Run processes the queue with workers until ctx ends.
func (c *Controller) Run(ctx context.Context, workers int) {
	worker.Run(ctx, c.queue, workers, c.syncKey, c.synced...)
}

func (c *Controller) syncKey(ctx context.Context, key string) (time.Duration, error) {
	return 0, c.sync(ctx, key)
}

// sync creates the missing ServiceAccounts of one namespace.
func (c *Controller) sync(ctx context.Context, namespace string) error {
	ns, err := c.namespaces.Get(namespace)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if ns.Status.Phase != corev1.NamespaceActive {
		return nil
	}
	var failures []error
	for _, name := range c.names {
		switch _, err := c.accounts.ServiceAccounts(namespace).Get(name); {
		case err == nil:
			continue
		case !apierrors.IsNotFound(err):
			return err
		}
		sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace}}
		_, err := c.client.CoreV1().ServiceAccounts(namespace).Create(ctx, sa, metav1.CreateOptions{})
		if err != nil && !apierrors.IsAlreadyExists(err) && !apierrors.HasStatusCause(err, corev1.NamespaceTerminatingCause) {
			failures = append(failures, err)
		}
	}
	return utilerrors.Flatten(utilerrors.NewAggregate(failures))
}
