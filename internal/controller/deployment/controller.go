package deployment

import (
	"context"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	appsinformers "k8s.io/client-go/informers/apps/v1"
	"k8s.io/client-go/kubernetes"
	appslisters "k8s.io/client-go/listers/apps/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/clock"

	"github.com/svcplane/svcplane/internal/controller/worker"
)

var kind = appsv1.SchemeGroupVersion.WithKind("Deployment")

// Controller rolls Deployments out.
type Controller struct {
	client      kubernetes.Interface
	deployments appslisters.DeploymentLister
	sets        appslisters.ReplicaSetLister
	synced      []cache.InformerSynced
	queue       workqueue.TypedRateLimitingInterface[string]
	clock       clock.Clock
}

// New returns a controller fed by the given informers.
func New(client kubernetes.Interface, deployments appsinformers.DeploymentInformer, sets appsinformers.ReplicaSetInformer, clk clock.Clock) *Controller {
	c := &Controller{client: client, deployments: deployments.Lister(), sets: sets.Lister(), clock: clk,
		synced: []cache.InformerSynced{deployments.Informer().HasSynced, sets.Informer().HasSynced},
		queue:  worker.NewQueue[string]("deployment")}
	enqueue := func(obj interface{}) {
		if key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj); err == nil {
			c.queue.Add(key)
		}
	}
	_, _ = deployments.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: enqueue, UpdateFunc: func(_, obj interface{}) { enqueue(obj) }, DeleteFunc: enqueue,
	})
	owner := func(obj interface{}) {
		if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
			obj = t.Obj
		}
		if rs, ok := obj.(*appsv1.ReplicaSet); ok {
			if ref := metav1.GetControllerOfNoCopy(rs); ref != nil && ref.Kind == kind.Kind {
				c.queue.Add(rs.Namespace + "/" + ref.Name)
			}
		}
	}
	_, _ = sets.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: owner, UpdateFunc: func(_, obj interface{}) { owner(obj) }, DeleteFunc: owner,
	})
	return c
}

// sync converges one Deployment.
func (c *Controller) sync(ctx context.Context, key string) error {
	ns, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return err
	}
	d, err := c.deployments.Deployments(ns).Get(name)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil || d.DeletionTimestamp != nil {
		return err
	}
	d = d.DeepCopy()
	selector, err := metav1.LabelSelectorAsSelector(d.Spec.Selector)
	if err != nil || selector.Empty() {
		return nil
	}
	owned, err := c.replicaSets(ctx, d, selector)
	if err != nil {
		return err
	}
	newRS, old := splitNewOld(d, owned)
	if d.Spec.Paused || scalingEvent(d, newRS, old) {
		return c.syncResize(ctx, d, newRS, old, owned)
	}
	if newRS == nil {
		if newRS, err = c.createNewRS(ctx, d, owned); err != nil {
			return err
		}
	} else if err := c.stampRevision(ctx, d, newRS, owned); err != nil {
		return err
	}
	if d.Spec.Strategy.Type == appsv1.RecreateDeploymentStrategyType {
		err = c.recreate(ctx, d, newRS, old)
	} else {
		err = c.rollingUpdate(ctx, d, newRS, old)
	}
	if err != nil {
		return err
	}
	if err := c.cleanup(ctx, d, old); err != nil {
		return err
	}
	return c.updateStatus(ctx, d, newRS, old)
}

// syncResize handles a paused Deployment or a change of replicas: the
// ReplicaSets are resized (proportionally mid-rollout) without rolling on.
func (c *Controller) syncResize(ctx context.Context, d *appsv1.Deployment, newRS *appsv1.ReplicaSet, old, owned []*appsv1.ReplicaSet) error {
	if newRS != nil {
		if err := c.stampRevision(ctx, d, newRS, owned); err != nil {
			return err
		}
	}
	if err := c.resize(ctx, d, newRS, old); err != nil {
		return err
	}
	if d.Spec.Paused {
		if err := c.cleanup(ctx, d, old); err != nil {
			return err
		}
	}
	return c.updateStatus(ctx, d, newRS, old)
}

// replicaSets returns copies of the ReplicaSets d controls, adopting
// matching orphans.
func (c *Controller) replicaSets(ctx context.Context, d *appsv1.Deployment, selector labels.Selector) ([]*appsv1.ReplicaSet, error) {
	all, err := c.sets.ReplicaSets(d.Namespace).List(labels.Everything())
	if err != nil {
		return nil, err
	}
	var out []*appsv1.ReplicaSet
	for _, rs := range all {
		ref := metav1.GetControllerOfNoCopy(rs)
		switch {
		case ref != nil && ref.UID == d.UID:
			// A copy: the sync writes the server's answers into the
			// ReplicaSets it scales (scale, stampRevision), and the
			// lister's must stay as its watch left them.
			out = append(out, rs.DeepCopy())
		case ref == nil && selector.Matches(labels.Set(rs.Labels)) && rs.DeletionTimestamp == nil:
			rs = rs.DeepCopy()
			rs.OwnerReferences = append(rs.OwnerReferences, controllerRef(d))
			if _, err := c.client.AppsV1().ReplicaSets(rs.Namespace).Update(ctx, rs, metav1.UpdateOptions{}); err != nil {
				return nil, err
			}
			out = append(out, rs)
		}
	}
	return out, nil
}

func controllerRef(d *appsv1.Deployment) metav1.OwnerReference {
	yes := true
	return metav1.OwnerReference{APIVersion: kind.GroupVersion().String(), Kind: kind.Kind, Name: d.Name, UID: d.UID,
		Controller: &yes, BlockOwnerDeletion: &yes}
}

func replicas(d *appsv1.Deployment) int32 {
	if d.Spec.Replicas == nil {
		return 1
	}
	return *d.Spec.Replicas
}

func rsReplicas(rs *appsv1.ReplicaSet) int32 {
	if rs.Spec.Replicas == nil {
		return 1
	}
	return *rs.Spec.Replicas
}

// Run processes the queue with workers until ctx ends.
func (c *Controller) Run(ctx context.Context, workers int) {
	worker.Run(ctx, c.queue, workers, c.syncKey, c.synced...)
}

func (c *Controller) syncKey(ctx context.Context, key string) (time.Duration, error) {
	return 0, c.sync(ctx, key)
}
