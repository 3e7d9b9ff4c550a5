package namespace

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	coreinformers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	"github.com/svcplane/svcplane/internal/controller/worker"
)

// RetryContent is how soon a namespace whose content is still going is
// looked at again.
const RetryContent = 2 * time.Second

// Controller empties and finalizes deleted namespaces.
type Controller struct {
	client    kubernetes.Interface
	dynamic   dynamic.Interface
	discovery discovery.DiscoveryInterface
	lister    corelisters.NamespaceLister
	synced    cache.InformerSynced
	queue     workqueue.TypedRateLimitingInterface[string]
	clock     clock.Clock
}

// New returns a controller.
func New(client kubernetes.Interface, dyn dynamic.Interface, disco discovery.DiscoveryInterface, namespaces coreinformers.NamespaceInformer) *Controller {
	c := &Controller{client: client, dynamic: dyn, discovery: disco,
		lister: namespaces.Lister(), synced: namespaces.Informer().HasSynced,
		queue: worker.NewQueue[string]("namespace"), clock: clock.RealClock{},
	}
	enqueue := func(obj interface{}) {
		if ns, ok := obj.(*corev1.Namespace); ok && ns.DeletionTimestamp != nil {
			c.queue.Add(ns.Name)
		}
	}
	_, _ = namespaces.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: enqueue, UpdateFunc: func(_, obj interface{}) { enqueue(obj) },
	})
	return c
}

// podsResource goes first: deleting pods before their controllers keeps
// those controllers from replacing them while the namespace empties.
var podsResource = schema.GroupVersionResource{Version: "v1", Resource: "pods"}

// sync deletes the content of a terminating namespace (pods first), keeps
// the deletion conditions in its status and finalizes it once empty; it
// returns how many objects are still there.
func (c *Controller) sync(ctx context.Context, name string) (int, error) {
	ns, err := c.lister.Get(name)
	if apierrors.IsNotFound(err) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	if ns.DeletionTimestamp == nil || !slices.Contains(ns.Spec.Finalizers, corev1.FinalizerKubernetes) {
		return 0, nil
	}
	rep := newReport()
	resources := c.deletableResources(rep)
	if slices.Contains(resources, podsResource) {
		c.deleteAll(ctx, podsResource, name, rep)
	}
	if rep.remaining[podsResource] == 0 {
		for _, gvr := range resources {
			if gvr != podsResource {
				c.deleteAll(ctx, gvr, name, rep)
			}
		}
	}
	ns, err = c.writeConditions(ctx, ns, rep)
	if err != nil || ns == nil {
		return 0, err
	}
	if !rep.clean() {
		if rep.total() > 0 {
			return rep.total(), nil
		}
		return 0, fmt.Errorf("namespace %s: %s", name, conditionSummary(rep))
	}
	ns = ns.DeepCopy()
	ns.Spec.Finalizers = slices.DeleteFunc(ns.Spec.Finalizers, func(f corev1.FinalizerName) bool { return f == corev1.FinalizerKubernetes })
	_, err = c.client.CoreV1().Namespaces().Finalize(ctx, ns, metav1.UpdateOptions{})
	if apierrors.IsNotFound(err) {
		return 0, nil
	}
	return 0, err
}

func conditionSummary(rep *report) string {
	var msgs []string
	for _, cond := range rep.conditions() {
		msgs = append(msgs, cond.Message)
	}
	return strings.Join(msgs, "; ")
}

// writeConditions records the pass's findings in the namespace's status
// and returns the namespace as written (or as it was when nothing changed).
func (c *Controller) writeConditions(ctx context.Context, ns *corev1.Namespace, rep *report) (*corev1.Namespace, error) {
	ns = ns.DeepCopy()
	if !applyConditions(&ns.Status, rep.conditions(), metav1.NewTime(c.clock.Now())) {
		return ns, nil
	}
	updated, err := c.client.CoreV1().Namespaces().UpdateStatus(ctx, ns, metav1.UpdateOptions{})
	if apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
		return nil, nil // gone, or a newer copy will be looked at
	}
	return updated, err
}

// deletableResources lists every namespaced resource the server can list
// and delete (discovery is asked afresh: served resources may change).
// A partial discovery failure is reported and the rest still used.
func (c *Controller) deletableResources(rep *report) []schema.GroupVersionResource {
	lists, err := c.discovery.ServerPreferredNamespacedResources()
	rep.discoveryErr = err
	var out []schema.GroupVersionResource
	for _, l := range lists {
		gv, err := schema.ParseGroupVersion(l.GroupVersion)
		if err != nil {
			rep.parseErrs = append(rep.parseErrs, err)
			continue
		}
		for _, r := range l.APIResources {
			if slices.Contains(r.Verbs, "list") && slices.Contains(r.Verbs, "delete") {
				out = append(out, gv.WithResource(r.Name))
			}
		}
	}
	return out
}

// deleteAll deletes every object of gvr in ns and records how many are
// still there (graceful deletions in progress, finalizers) and failures.
func (c *Controller) deleteAll(ctx context.Context, gvr schema.GroupVersionResource, ns string, rep *report) {
	api := c.dynamic.Resource(gvr).Namespace(ns)
	list, err := api.List(ctx, metav1.ListOptions{})
	if apierrors.IsNotFound(err) || apierrors.IsMethodNotSupported(err) {
		return
	}
	if err != nil {
		rep.deleteErrs = append(rep.deleteErrs, fmt.Errorf("failed to list %s: %w", gvr, err))
		return
	}
	if len(list.Items) == 0 {
		return
	}
	background := metav1.DeletePropagationBackground
	for _, item := range list.Items {
		if item.GetDeletionTimestamp() != nil {
			continue
		}
		err := api.Delete(ctx, item.GetName(), metav1.DeleteOptions{PropagationPolicy: &background})
		if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
			rep.deleteErrs = append(rep.deleteErrs, fmt.Errorf("failed to delete %s %s: %w", gvr, item.GetName(), err))
			return
		}
	}
	after, err := api.List(ctx, metav1.ListOptions{})
	if err != nil {
		rep.deleteErrs = append(rep.deleteErrs, fmt.Errorf("failed to list %s: %w", gvr, err))
		return
	}
	rep.remaining[gvr] += len(after.Items)
	for _, item := range after.Items {
		for _, f := range item.GetFinalizers() {
			rep.finalizers[f]++
		}
	}
}

// Run processes the queue with workers until ctx ends.
func (c *Controller) Run(ctx context.Context, workers int) {
	worker.Run(ctx, c.queue, workers, c.syncKey, c.synced)
}

func (c *Controller) syncKey(ctx context.Context, key string) (time.Duration, error) {
	remaining, err := c.sync(ctx, key)
	if err == nil && remaining > 0 {
		klog.V(2).InfoS("Namespace content still going", "namespace", key, "remaining", remaining)
		return RetryContent, nil
	}
	return 0, err
}
