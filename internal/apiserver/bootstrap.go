package apiserver

import (
	genericapiserver "k8s.io/apiserver/pkg/server"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/clock"

	"github.com/svcplane/svcplane/internal/bootstrap/defaultservicecidr"
	"github.com/svcplane/svcplane/internal/bootstrap/systemnamespaces"
)

// addBootstrapHooks registers what the server does once it serves: the
// system namespaces and (in IPAddress mode) the default ServiceCIDR exist
// before /readyz turns 200 and are kept afterwards.
func addBootstrapHooks(s *genericapiserver.GenericAPIServer, client kubernetes.Interface, o *Options) {
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
	s.AddPostStartHookOrDie("start-default-servicecidr-controller", func(hc genericapiserver.PostStartHookContext) error {
		c := defaultservicecidr.New(client, specs, clock.RealClock{})
		if err := c.Sync(hc); err != nil {
			return err
		}
		go c.Run(hc)
		return nil
	})
}
