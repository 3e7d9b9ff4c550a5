package kubernetesservice

import (
	"context"
	"net"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	"github.com/svcplane/svcplane/internal/bootstrap/reconcilers"
)

// Interval is how often the Service and endpoints are reconciled.
const Interval = 10 * time.Second

// RetryFirst is the wait after a failed sync; it doubles up to Interval.
const RetryFirst = 500 * time.Millisecond

// Config describes the Service and this server's endpoint.
type Config struct {
	ServiceIP   net.IP // first address of the primary service range
	ServicePort int32  // 443
	NodePort    int32  // --kubernetes-service-node-port; 0 means ClusterIP
	PublicIP    net.IP // this server's advertise address
	PublicPort  int32  // --secure-port
}

// Controller keeps the kubernetes Service and its endpoints.
type Controller struct {
	cfg        Config
	client     kubernetes.Interface
	reconciler reconcilers.Interface
	clock      clock.WithTicker
	// ready reports whether this server serves (its /readyz is 200); its
	// endpoint is published only then.
	ready func(context.Context) bool
	kick  chan struct{}
}

// New returns a controller.
func New(cfg Config, client kubernetes.Interface, r reconcilers.Interface, clk clock.WithTicker, ready func(context.Context) bool) *Controller {
	return &Controller{cfg: cfg, client: client, reconciler: r, clock: clk, ready: ready, kick: make(chan struct{}, 1)}
}

// Start removes this server's stale endpoint and starts reconciling.
func (c *Controller) Start(ctx context.Context) {
	if err := c.reconciler.RemoveEndpoints(ctx, c.cfg.PublicIP, c.endpointPorts()); err != nil {
		klog.ErrorS(err, "Error removing old endpoints from kubernetes service")
	}
	c.watchService(ctx)
	if lr, ok := c.reconciler.(*reconcilers.LeaseReconciler); ok {
		c.watchLeases(ctx, lr)
	}
	go c.run(ctx)
}

// Stop stops reconciling and takes this server out of the endpoints.
func (c *Controller) Stop(ctx context.Context) error {
	c.reconciler.StopReconciling()
	return c.reconciler.RemoveEndpoints(ctx, c.cfg.PublicIP, c.endpointPorts())
}

func (c *Controller) trigger() {
	select {
	case c.kick <- struct{}{}:
	default:
	}
}

func (c *Controller) run(ctx context.Context) {
	for !c.ready(ctx) {
		select {
		case <-ctx.Done():
			return
		case <-c.clock.After(100 * time.Millisecond):
		}
	}
	t := c.clock.NewTicker(Interval)
	defer t.Stop()
	retry := time.Duration(0)
	for {
		var again <-chan time.Time
		if err := c.Sync(ctx); err != nil {
			// A failed sync (the Service's IP still held while its
			// vanished key's IPAddress is freed, etcd briefly away) is
			// retried soon, not only at the next interval.
			retry = min(max(2*retry, RetryFirst), Interval)
			klog.V(1).InfoS("Unable to sync the kubernetes Service and its endpoints; retrying", "err", err, "in", retry)
			again = c.clock.After(retry)
		} else {
			retry = 0
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C():
		case <-c.kick:
		case <-again:
		}
	}
}

// Sync creates or fixes the Service, then reconciles the endpoints.
func (c *Controller) Sync(ctx context.Context) error {
	if err := c.ensureService(ctx); err != nil {
		return err
	}
	return c.reconciler.ReconcileEndpoints(ctx, c.cfg.PublicIP, c.endpointPorts(), true)
}

func (c *Controller) endpointPorts() []corev1.EndpointPort {
	return []corev1.EndpointPort{{Name: "https", Port: c.cfg.PublicPort, Protocol: corev1.ProtocolTCP}}
}

func (c *Controller) desired() *corev1.Service {
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: reconcilers.Namespace, Name: reconcilers.Name,
			Labels: map[string]string{"component": "apiserver", "provider": "kubernetes"}},
		Spec: corev1.ServiceSpec{
			Type:            corev1.ServiceTypeClusterIP,
			ClusterIP:       c.cfg.ServiceIP.String(),
			SessionAffinity: corev1.ServiceAffinityNone,
			Ports: []corev1.ServicePort{{Name: "https", Port: c.cfg.ServicePort, Protocol: corev1.ProtocolTCP,
				TargetPort: intstr.FromInt32(c.cfg.PublicPort), NodePort: c.cfg.NodePort}},
		},
	}
	if c.cfg.NodePort > 0 {
		svc.Spec.Type = corev1.ServiceTypeNodePort
	}
	return svc
}

func (c *Controller) ensureService(ctx context.Context) error {
	api := c.client.CoreV1().Services(reconcilers.Namespace)
	want := c.desired()
	cur, err := api.Get(ctx, reconcilers.Name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		_, err = api.Create(ctx, want, metav1.CreateOptions{})
		if apierrors.IsInvalid(err) && c.reclaimServiceIP(ctx) {
			_, err = api.Create(ctx, want, metav1.CreateOptions{})
		}
		if apierrors.IsAlreadyExists(err) {
			return nil
		}
		return err
	}
	if err != nil {
		return err
	}
	if cur.Spec.Type == want.Spec.Type && len(cur.Spec.Ports) == 1 && portMatches(cur.Spec.Ports[0], want.Spec.Ports[0]) {
		return nil
	}
	cur.Spec.Type, cur.Spec.Ports = want.Spec.Type, want.Spec.Ports
	_, err = api.Update(ctx, cur, metav1.UpdateOptions{})
	return err
}

// reclaimServiceIP frees the Service's ClusterIP when its IPAddress still
// names the kubernetes Service, which is gone: its key vanished from
// storage (a restore, a manual etcd edit) and left the allocation behind.
// The leak check would free it only once it is 60 s old; this address is
// the kubernetes Service's alone, so it is taken back at once.
func (c *Controller) reclaimServiceIP(ctx context.Context) bool {
	api := c.client.NetworkingV1().IPAddresses()
	ip, err := api.Get(ctx, c.cfg.ServiceIP.String(), metav1.GetOptions{})
	if err != nil {
		return false
	}
	p := ip.Spec.ParentRef
	if p == nil || p.Group != "" || p.Resource != "services" || p.Namespace != reconcilers.Namespace || p.Name != reconcilers.Name {
		return false
	}
	err = api.Delete(ctx, ip.Name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &ip.UID}})
	if err != nil && !apierrors.IsNotFound(err) {
		return false
	}
	klog.InfoS("Took back the kubernetes Service's ClusterIP from its vanished Service", "ip", ip.Name)
	return true
}

func portMatches(cur, want corev1.ServicePort) bool {
	return cur.Name == want.Name && cur.Port == want.Port && cur.Protocol == want.Protocol &&
		cur.TargetPort == want.TargetPort && (want.NodePort == 0 || cur.NodePort == want.NodePort)
}

// watchService triggers a sync when the Service is deleted or changed.
func (c *Controller) watchService(ctx context.Context) {
	f := informers.NewSharedInformerFactoryWithOptions(c.client, 0,
		informers.WithNamespace(reconcilers.Namespace),
		informers.WithTweakListOptions(func(o *metav1.ListOptions) {
			o.FieldSelector = fields.OneTermEqualSelector("metadata.name", reconcilers.Name).String()
		}))
	_, _ = f.Core().V1().Services().Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		UpdateFunc: func(_, _ interface{}) { c.trigger() },
		DeleteFunc: func(interface{}) { c.trigger() },
	})
	f.Start(ctx.Done())
}

// watchLeases rewrites the endpoints as soon as a lease appears or expires.
func (c *Controller) watchLeases(ctx context.Context, lr *reconcilers.LeaseReconciler) {
	changes, err := lr.Leases().Changes(ctx)
	if err != nil {
		klog.ErrorS(err, "Unable to watch the API server leases; relying on the reconcile interval")
		return
	}
	go func() {
		for {
			select {
			case <-ctx.Done():
				return
			case <-changes:
				if !c.ready(ctx) {
					continue
				}
				if err := lr.Resync(ctx, c.endpointPorts()); err != nil {
					klog.ErrorS(err, "Unable to reconcile the kubernetes endpoints after a lease change")
				}
			}
		}
	}()
}
