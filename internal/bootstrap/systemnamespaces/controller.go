package systemnamespaces

import (
	"context"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/clock"

	"github.com/svcplane/svcplane/internal/bootstrap/periodic"
)

// Names are the namespaces every cluster has.
var Names = []string{metav1.NamespaceDefault, metav1.NamespaceSystem, metav1.NamespacePublic, corev1.NamespaceNodeLease}

// Interval is how often the controller checks.
const Interval = time.Minute

// Controller creates missing system namespaces.
type Controller struct {
	client kubernetes.Interface
	clock  clock.WithTicker
	kick   chan struct{}
}

// New returns a controller using client.
func New(client kubernetes.Interface, clk clock.WithTicker) *Controller {
	return &Controller{client: client, clock: clk, kick: make(chan struct{}, 1)}
}

// Deleted tells the controller a namespace is gone: a system one is
// re-created at once instead of at the next interval.
func (c *Controller) Deleted(name string) {
	for _, n := range Names {
		if n == name {
			select {
			case c.kick <- struct{}{}:
			default:
			}
		}
	}
}

// Sync creates every missing system namespace once.
func (c *Controller) Sync(ctx context.Context) error {
	var firstErr error
	for _, name := range Names {
		_, err := c.client.CoreV1().Namespaces().Get(ctx, name, metav1.GetOptions{})
		if err == nil {
			continue
		}
		if apierrors.IsNotFound(err) {
			ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
			_, err = c.client.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{})
			if apierrors.IsAlreadyExists(err) {
				err = nil
			}
		}
		if err != nil && firstErr == nil {
			firstErr = err
		}
	}
	return firstErr
}

// Run syncs every Interval, and when a system namespace is deleted, until
// ctx ends.
func (c *Controller) Run(ctx context.Context) {
	periodic.Run(ctx, c.clock, Interval, c.kick, "Unable to create system namespaces", c.Sync)
}
