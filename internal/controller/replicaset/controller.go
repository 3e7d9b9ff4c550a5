package replicaset

import (
	"context"
	"fmt"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	appsinformers "k8s.io/client-go/informers/apps/v1"
	coreinformers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/clock"

	"github.com/svcplane/svcplane/internal/controller/worker"
)

// BurstReplicas caps the pods created or deleted in one sync, as upstream.
const BurstReplicas = 500

// Controller keeps ReplicaSets' pods.
type Controller struct {
	client       kubernetes.Interface
	kind         Kind
	pods         corelisters.PodLister
	synced       []cache.InformerSynced
	queue        workqueue.TypedRateLimitingInterface[string]
	expectations *expectations
	clock        clock.Clock
}

// New returns a ReplicaSet controller fed by the given informers.
func New(client kubernetes.Interface, sets appsinformers.ReplicaSetInformer, pods coreinformers.PodInformer, clk clock.Clock) *Controller {
	return NewFor(client, ReplicaSetKind(client, sets), pods, clk)
}

// NewFor returns the controller for kind, a ReplicaSet-like owner of pods.
func NewFor(client kubernetes.Interface, kind Kind, pods coreinformers.PodInformer, clk clock.Clock) *Controller {
	c := &Controller{client: client, kind: kind, pods: pods.Lister(), clock: clk,
		synced:       []cache.InformerSynced{kind.Informer.HasSynced, pods.Informer().HasSynced},
		expectations: newExpectations(clk),
		queue:        worker.NewQueue[string](strings.ToLower(kind.GVK.Kind))}
	enqueue := func(obj interface{}) {
		if key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj); err == nil {
			c.queue.Add(key)
		}
	}
	_, _ = kind.Informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: enqueue, UpdateFunc: func(_, obj interface{}) { enqueue(obj) }, DeleteFunc: enqueue,
	})
	_, _ = pods.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj interface{}) { c.podEvent(obj, 1, 0) },
		UpdateFunc: func(old, obj interface{}) { c.podEvent(old, 0, 0); c.podEvent(obj, 0, 0) },
		DeleteFunc: func(obj interface{}) { c.podEvent(obj, 0, 1) },
	})
	return c
}

// podEvent enqueues the ReplicaSet owning pod (recording an observed
// creation or deletion), or every ReplicaSet that could adopt an orphan.
func (c *Controller) podEvent(obj interface{}, added, deleted int) {
	if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = t.Obj
	}
	pod, ok := obj.(*corev1.Pod)
	if !ok {
		return
	}
	if ref := metav1.GetControllerOfNoCopy(pod); ref != nil {
		if ref.Kind != c.kind.GVK.Kind {
			return
		}
		rs, err := c.kind.Get(pod.Namespace, ref.Name)
		if err != nil || rs.UID != ref.UID {
			return
		}
		key := pod.Namespace + "/" + rs.Name
		c.expectations.observe(key, added, deleted)
		c.queue.Add(key)
		return
	}
	sets, _ := c.kind.List(pod.Namespace)
	for _, rs := range sets {
		if sel, err := metav1.LabelSelectorAsSelector(rs.Spec.Selector); err == nil && !sel.Empty() && sel.Matches(labels.Set(pod.Labels)) {
			c.queue.Add(pod.Namespace + "/" + rs.Name)
		}
	}
}

// sync converges one ReplicaSet.
func (c *Controller) sync(ctx context.Context, key string) error {
	ns, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return err
	}
	rs, err := c.kind.Get(ns, name)
	if apierrors.IsNotFound(err) {
		c.expectations.forget(key)
		return nil
	}
	if err != nil {
		return err
	}
	selector, err := metav1.LabelSelectorAsSelector(rs.Spec.Selector)
	if err != nil {
		return nil // invalid selectors are refused at validation
	}
	all, err := c.pods.Pods(ns).List(labels.Everything())
	if err != nil {
		return err
	}
	pods, err := c.claimPods(ctx, rs, selector, all)
	if err != nil {
		return err
	}
	var manageErr error
	if c.expectations.satisfied(key) && rs.DeletionTimestamp == nil {
		manageErr = c.manageReplicas(ctx, rs, key, pods, all)
	}
	if err := c.updateStatus(ctx, rs, pods, manageErr); err != nil {
		return err
	}
	return manageErr
}

// activePods filters out terminal and terminating pods.
func active(p *corev1.Pod) bool {
	return p.DeletionTimestamp == nil && p.Status.Phase != corev1.PodSucceeded && p.Status.Phase != corev1.PodFailed
}

func replicasOf(rs *appsv1.ReplicaSet) int {
	if rs.Spec.Replicas == nil {
		return 1
	}
	return int(*rs.Spec.Replicas)
}

func (c *Controller) String() string {
	return fmt.Sprintf("%s controller (%v)", strings.ToLower(c.kind.GVK.Kind), c.queue.Len())
}

// Run processes the queue with workers until ctx ends.
func (c *Controller) Run(ctx context.Context, workers int) {
	worker.Run(ctx, c.queue, workers, c.syncKey, c.synced...)
}

func (c *Controller) syncKey(ctx context.Context, key string) (time.Duration, error) {
	return 0, c.sync(ctx, key)
}
