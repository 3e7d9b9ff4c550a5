package clusterroleaggregation

import (
	"context"
	"sort"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	rbacv1ac "k8s.io/client-go/applyconfigurations/rbac/v1"
	informers "k8s.io/client-go/informers/rbac/v1"
	"k8s.io/client-go/kubernetes"
	listers "k8s.io/client-go/listers/rbac/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"

	"github.com/svcplane/svcplane/internal/controller/worker"
)

// FieldManager is the manager of the aggregated rules.
const FieldManager = "clusterrole-aggregation-controller"

// Controller keeps aggregated ClusterRoles' rules.
type Controller struct {
	client kubernetes.Interface
	roles  listers.ClusterRoleLister
	synced cache.InformerSynced
	queue  workqueue.TypedRateLimitingInterface[string]
}

// New returns the controller; any ClusterRole event re-examines every
// aggregating ClusterRole (there are few, and which role feeds which is
// only known by evaluating the selectors).
func New(client kubernetes.Interface, roles informers.ClusterRoleInformer) *Controller {
	c := &Controller{client: client, roles: roles.Lister(), synced: roles.Informer().HasSynced,
		queue: worker.NewQueue[string]("clusterrole_aggregation")}
	_, _ = roles.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(interface{}) { c.enqueueAggregating() },
		UpdateFunc: func(_, _ interface{}) { c.enqueueAggregating() },
		DeleteFunc: func(interface{}) { c.enqueueAggregating() },
	})
	return c
}

func (c *Controller) enqueueAggregating() {
	all, err := c.roles.List(labels.Everything())
	if err != nil {
		utilruntime.HandleError(err)
		return
	}
	for _, r := range all {
		if r.AggregationRule != nil {
			c.queue.Add(r.Name)
		}
	}
}

// Run processes the queue with workers until ctx ends.
func (c *Controller) Run(ctx context.Context, workers int) {
	worker.Run(ctx, c.queue, workers, func(ctx context.Context, name string) (time.Duration, error) {
		return 0, c.sync(ctx, name)
	}, c.synced)
}

// sync sets one aggregating ClusterRole's rules to the union of the rules
// of the ClusterRoles its selectors match.
func (c *Controller) sync(ctx context.Context, name string) error {
	role, err := c.roles.Get(name)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if role.AggregationRule == nil {
		return nil
	}
	rules, err := c.aggregate(role)
	if err != nil {
		return err
	}
	if equality.Semantic.DeepEqual(rules, role.Rules) {
		return nil
	}
	apply := rbacv1ac.ClusterRole(name)
	for _, r := range rules {
		pr := rbacv1ac.PolicyRule()
		pr.Verbs, pr.APIGroups, pr.Resources, pr.ResourceNames, pr.NonResourceURLs = r.Verbs, r.APIGroups, r.Resources, r.ResourceNames, r.NonResourceURLs
		apply.WithRules(pr)
	}
	_, err = c.client.RbacV1().ClusterRoles().Apply(ctx, apply, metav1.ApplyOptions{FieldManager: FieldManager, Force: true})
	return err
}

// aggregate gathers the rules: selector by selector, matching roles in
// name order (the role itself excluded), each distinct rule once.
func (c *Controller) aggregate(role *rbacv1.ClusterRole) ([]rbacv1.PolicyRule, error) {
	rules := []rbacv1.PolicyRule{}
	for i := range role.AggregationRule.ClusterRoleSelectors {
		sel, err := metav1.LabelSelectorAsSelector(&role.AggregationRule.ClusterRoleSelectors[i])
		if err != nil {
			return nil, err
		}
		matched, err := c.roles.List(sel)
		if err != nil {
			return nil, err
		}
		sort.Slice(matched, func(a, b int) bool { return matched[a].Name < matched[b].Name })
		for _, m := range matched {
			if m.Name == role.Name {
				continue
			}
			for _, r := range m.Rules {
				if !contains(rules, r) {
					rules = append(rules, r)
				}
			}
		}
	}
	return rules, nil
}

func contains(rules []rbacv1.PolicyRule, r rbacv1.PolicyRule) bool {
	for _, x := range rules {
		if equality.Semantic.DeepEqual(x, r) {
			return true
		}
	}
	return false
}
