package apiserver

import (
	"context"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
	genericapiserver "k8s.io/apiserver/pkg/server"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	"github.com/svcplane/svcplane/internal/bootstrap/defaultservicecidr"
	"github.com/svcplane/svcplane/internal/bootstrap/systemnamespaces"
	"github.com/svcplane/svcplane/internal/controller/servicecidr"
)

// addBootstrapHooks registers what the server does once it serves: the
// system namespaces and (in IPAddress mode) the default ServiceCIDR exist
// before /readyz turns 200 and are kept afterwards.
func addBootstrapHooks(s *genericapiserver.GenericAPIServer, client kubernetes.Interface, o *Options, repairs []Repairer) {
	s.AddPostStartHookOrDie("start-service-allocation-repair-controllers", func(hc genericapiserver.PostStartHookContext) error {
		return startRepairs(hc, repairs, o.RepairInterval)
	})
	s.AddPostStartHookOrDie("start-system-namespaces-controller", func(hc genericapiserver.PostStartHookContext) error {
		c := systemnamespaces.New(client, clock.RealClock{})
		if err := c.Sync(hc); err != nil {
			return err
		}
		go c.Run(hc)
		return nil
	})
	if o.ServiceIPAllocator != AllocatorIPAddress {
		return
	}
	cidrs, _ := ServiceCIDRs(o.ServiceClusterIPRange)
	var specs []string
	for _, c := range cidrs {
		specs = append(specs, c.String())
	}
	s.AddPostStartHookOrDie("start-service-cidr-controller", func(hc genericapiserver.PostStartHookContext) error {
		f := informers.NewSharedInformerFactory(client, 10*time.Minute)
		c := servicecidr.New(client, f.Networking().V1().ServiceCIDRs(), f.Networking().V1().IPAddresses())
		f.Start(hc.Done())
		go c.Run(hc, 1)
		return nil
	})
	s.AddPostStartHookOrDie("start-default-servicecidr-controller", func(hc genericapiserver.PostStartHookContext) error {
		c := defaultservicecidr.New(client, specs, clock.RealClock{})
		if err := c.Sync(hc); err != nil {
			return err
		}
		go c.Run(hc)
		return nil
	})
}

// startRepairs runs a first pass of every repair loop (retrying until it
// succeeds, so /readyz waits for it), then one pass each interval.
func startRepairs(ctx context.Context, repairs []Repairer, interval time.Duration) error {
	for _, r := range repairs {
		err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
			if err := r.RunOnce(ctx); err != nil {
				klog.ErrorS(err, "Service allocation repair pass failed; retrying")
				return false, nil
			}
			return true, nil
		})
		if err != nil {
			return fmt.Errorf("first service allocation repair pass: %w", err)
		}
	}
	go func() {
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			for _, r := range repairs {
				if err := r.RunOnce(ctx); err != nil {
					klog.ErrorS(err, "Service allocation repair pass failed")
				}
			}
		}
	}()
	return nil
}
