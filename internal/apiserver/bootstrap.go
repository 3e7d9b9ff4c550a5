package apiserver

import (
	"context"
	"errors"
	"fmt"
	"net"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/registry/generic"

	genericapiserver "k8s.io/apiserver/pkg/server"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	"github.com/svcplane/svcplane/internal/allocator/ipallocator"
	"github.com/svcplane/svcplane/internal/allocator/repair"
	"github.com/svcplane/svcplane/internal/bootstrap/defaultservicecidr"
	"github.com/svcplane/svcplane/internal/bootstrap/kubernetesservice"
	"github.com/svcplane/svcplane/internal/bootstrap/periodic"
	"github.com/svcplane/svcplane/internal/bootstrap/reconcilers"
	"github.com/svcplane/svcplane/internal/bootstrap/systemnamespaces"
	"github.com/svcplane/svcplane/internal/bootstrap/systempriorityclasses"
)

// addBootstrapHooks registers what the server does once it serves: the
// system namespaces, the system priority classes and (in IPAddress mode) the default ServiceCIDR exist
// before /readyz turns 200 and are kept afterwards.
func addBootstrapHooks(s *genericapiserver.GenericAPIServer, client kubernetes.Interface, o *Options, repairs repairLoops) {
	s.AddPostStartHookOrDie("start-service-allocation-repair-controllers", func(hc genericapiserver.PostStartHookContext) error {
		if repairs.orphans != nil {
			go repairs.orphans.Run(hc)
		}
		return startRepairs(hc, repairs.passes, o.RepairInterval)
	})
	s.AddPostStartHookOrDie("start-system-namespaces-controller", func(hc genericapiserver.PostStartHookContext) error {
		c := systemnamespaces.New(client, clock.RealClock{})
		if err := periodic.Until(hc, clock.RealClock{}, "Unable to create the system namespaces", c.Sync); err != nil {
			return err
		}
		f := informers.NewSharedInformerFactory(client, 0)
		_, _ = f.Core().V1().Namespaces().Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
			DeleteFunc: func(obj interface{}) {
				if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
					obj = t.Obj
				}
				if ns, ok := obj.(*corev1.Namespace); ok {
					c.Deleted(ns.Name)
				}
			},
		})
		f.Start(hc.Done())
		go c.Run(hc)
		return nil
	})
	s.AddPostStartHookOrDie(systempriorityclasses.HookName, func(hc genericapiserver.PostStartHookContext) error {
		return periodic.Until(hc, clock.RealClock{}, "Unable to create the system priority classes", func(ctx context.Context) error {
			return systempriorityclasses.Sync(ctx, client)
		})
	})
	if o.ServiceIPAllocator != AllocatorIPAddress {
		return
	}
	cidrs, _ := ServiceCIDRs(o.ServiceClusterIPRange)
	var specs []string
	for _, c := range cidrs {
		specs = append(specs, c.String())
	}
	s.AddPostStartHookOrDie("start-default-servicecidr-controller", func(hc genericapiserver.PostStartHookContext) error {
		c := defaultservicecidr.New(client, specs, clock.RealClock{})
		if err := periodic.Until(hc, clock.RealClock{}, "Unable to create the default ServiceCIDR", c.Sync); err != nil {
			return err
		}
		go c.Run(hc)
		return nil
	})
}

// startRepairs runs a first pass of every repair loop (retrying until it
// succeeds, so /readyz waits for it), then the next passes on the repair
// schedule.
func startRepairs(ctx context.Context, repairs []Repairer, interval time.Duration) error {
	clk := clock.RealClock{}
	for _, r := range repairs {
		if err := periodic.Until(ctx, clk, "Service allocation repair pass failed", r.RunOnce); err != nil {
			return fmt.Errorf("first service allocation repair pass: %w", err)
		}
	}
	go repair.RunPasses(ctx, clk, interval, func(ctx context.Context) error {
		var errs []error
		for _, r := range repairs {
			errs = append(errs, r.RunOnce(ctx))
		}
		return errors.Join(errs...)
	})
	return nil
}

// addKubernetesServiceHooks runs the controller of the `kubernetes` Service
// and its endpoints after start and takes this server out of the endpoints
// before shutdown.
func (s *Server) addKubernetesServiceHooks(g *genericapiserver.GenericAPIServer, client kubernetes.Interface, o *Options, optsGetter generic.RESTOptionsGetter, port int) error {
	r, err := s.endpointReconciler(o, client, optsGetter)
	if err != nil {
		return err
	}
	cidrs, _ := ServiceCIDRs(o.ServiceClusterIPRange)
	first, err := ipallocator.NewRange(cidrs[0], 64)
	if err != nil {
		return err
	}
	cfg := kubernetesservice.Config{
		ServiceIP: net.IP(first.Addr(0).AsSlice()), ServicePort: 443, NodePort: int32(o.KubernetesServiceNodePort),
		PublicIP: s.AdvertiseAddress, PublicPort: int32(port),
	}
	ready := func(ctx context.Context) bool {
		return client.CoreV1().RESTClient().Get().AbsPath("/readyz").Do(ctx).Error() == nil
	}
	c := kubernetesservice.New(cfg, client, r, clock.RealClock{}, ready)
	g.AddPostStartHookOrDie("bootstrap-controller", func(hc genericapiserver.PostStartHookContext) error {
		c.Start(hc)
		return nil
	})
	return g.AddPreShutdownHook("stop-bootstrap-controller", func() error {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		return c.Stop(ctx)
	})
}

// endpointReconciler returns the --endpoint-reconciler-type reconciler, or
// none when the advertise address is loopback (Endpoints refuse those).
func (s *Server) endpointReconciler(o *Options, client kubernetes.Interface, optsGetter generic.RESTOptionsGetter) (reconcilers.Interface, error) {
	if s.AdvertiseAddress.IsLoopback() && o.EndpointReconcilerType != reconcilers.TypeNone {
		klog.Warningf("advertise address %s is a loopback address, which Endpoints may not hold: the kubernetes Service gets no endpoints from this server; set --advertise-address", s.AdvertiseAddress)
		return reconcilers.None{}, nil
	}
	switch o.EndpointReconcilerType {
	case reconcilers.TypeMasterCount:
		return reconcilers.NewMasterCount(client, o.APIServerCount), nil
	case reconcilers.TypeNone:
		return reconcilers.None{}, nil
	}
	leases, err := rawStorage(optsGetter, "apiServerIPInfo", "/masterleases", func() runtime.Object { return &corev1.Endpoints{} })
	if err != nil {
		return nil, err
	}
	return reconcilers.NewLease(client, reconcilers.NewEtcdLeases(leases)), nil
}
