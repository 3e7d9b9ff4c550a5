package defaultservicecidr

import (
	"context"
	"time"

	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/clock"

	"github.com/svcplane/svcplane/internal/bootstrap/periodic"
)

// Name is the default ServiceCIDR's name.
const Name = "kubernetes"

// Interval is how often the controller checks.
const Interval = 10 * time.Second

// Controller keeps the default ServiceCIDR.
type Controller struct {
	client kubernetes.Interface
	cidrs  []string
	clock  clock.WithTicker
}

// New returns a controller for cidrs (primary first).
func New(client kubernetes.Interface, cidrs []string, clk clock.WithTicker) *Controller {
	return &Controller{client: client, cidrs: cidrs, clock: clk}
}

// Sync creates the ServiceCIDR if missing and marks it Ready. Another
// server may do the same at the same moment: its create and status write
// win, this one re-reads and finds the work done.
func (c *Controller) Sync(ctx context.Context) error {
	api := c.client.NetworkingV1().ServiceCIDRs()
	return retry.OnError(retry.DefaultRetry, func(err error) bool {
		return apierrors.IsConflict(err) || apierrors.IsAlreadyExists(err)
	}, func() error {
		sc, err := api.Get(ctx, Name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			sc, err = api.Create(ctx, &networkingv1.ServiceCIDR{
				ObjectMeta: metav1.ObjectMeta{Name: Name},
				Spec:       networkingv1.ServiceCIDRSpec{CIDRs: c.cidrs},
			}, metav1.CreateOptions{})
		}
		if err != nil {
			return err
		}
		if meta.IsStatusConditionTrue(sc.Status.Conditions, networkingv1.ServiceCIDRConditionReady) {
			return nil
		}
		meta.SetStatusCondition(&sc.Status.Conditions, metav1.Condition{
			Type:    networkingv1.ServiceCIDRConditionReady,
			Status:  metav1.ConditionTrue,
			Reason:  "DefaultServiceCIDR",
			Message: "Kubernetes default Service CIDR is ready",
		})
		_, err = api.UpdateStatus(ctx, sc, metav1.UpdateOptions{})
		return err
	})
}

// Run syncs every Interval until ctx ends.
func (c *Controller) Run(ctx context.Context) {
	periodic.Run(ctx, c.clock, Interval, nil, "Unable to keep the default ServiceCIDR", c.Sync)
}
