package validatingadmissionpolicystatus

import (
	"context"
	"time"

	v1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	applyv1 "k8s.io/client-go/applyconfigurations/admissionregistration/v1"
	informers "k8s.io/client-go/informers/admissionregistration/v1"
	"k8s.io/client-go/kubernetes"
	listers "k8s.io/client-go/listers/admissionregistration/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"

	"github.com/svcplane/svcplane/internal/controller/worker"
)

// ControllerName is upstream's, also the field manager of the status.
const ControllerName = "validatingadmissionpolicy-status"

// TypeChecker returns the warnings of a policy's expressions (upstream's
// validating.TypeChecker from k8s.io/apiserver).
type TypeChecker interface {
	Check(policy *v1.ValidatingAdmissionPolicy) []v1.ExpressionWarning
}

// Controller writes the type checks of ValidatingAdmissionPolicies.
type Controller struct {
	client   kubernetes.Interface
	policies listers.ValidatingAdmissionPolicyLister
	synced   cache.InformerSynced
	queue    workqueue.TypedRateLimitingInterface[string]
	checker  TypeChecker
}

// New returns a controller for the policies of the informer.
func New(client kubernetes.Interface, policies informers.ValidatingAdmissionPolicyInformer, checker TypeChecker) *Controller {
	c := &Controller{
		client: client, policies: policies.Lister(), synced: policies.Informer().HasSynced,
		queue: worker.NewQueue[string](ControllerName), checker: checker,
	}
	_, _ = policies.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    c.enqueue,
		UpdateFunc: func(_, obj interface{}) { c.enqueue(obj) },
	})
	return c
}

func (c *Controller) enqueue(obj interface{}) {
	if p, ok := obj.(*v1.ValidatingAdmissionPolicy); ok && p.Name != "" {
		c.queue.Add(p.Name)
	}
}

// Run processes the queue with workers until ctx ends.
func (c *Controller) Run(ctx context.Context, workers int) {
	worker.Run(ctx, c.queue, workers, c.syncKey, c.synced)
}

func (c *Controller) syncKey(ctx context.Context, name string) (time.Duration, error) {
	return 0, c.sync(ctx, name)
}

// sync type-checks one policy unless its status is of its generation.
func (c *Controller) sync(ctx context.Context, name string) error {
	p, err := c.policies.Get(name)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if p.Generation <= p.Status.ObservedGeneration {
		return nil
	}
	warnings := c.checker.Check(p)
	applied := make([]*applyv1.ExpressionWarningApplyConfiguration, 0, len(warnings))
	for _, w := range warnings {
		applied = append(applied, applyv1.ExpressionWarning().WithFieldRef(w.FieldRef).WithWarning(w.Warning))
	}
	status := applyv1.ValidatingAdmissionPolicy(p.Name).WithStatus(applyv1.ValidatingAdmissionPolicyStatus().
		WithObservedGeneration(p.Generation).
		WithTypeChecking(applyv1.TypeChecking().WithExpressionWarnings(applied...)))
	_, err = c.client.AdmissionregistrationV1().ValidatingAdmissionPolicies().ApplyStatus(ctx, status,
		metav1.ApplyOptions{FieldManager: ControllerName, Force: true})
	return err
}
