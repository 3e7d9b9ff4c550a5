package apiserver

import (
	"context"
	"runtime/debug"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
	genericapiserver "k8s.io/apiserver/pkg/server"
	"k8s.io/klog/v2"

	"github.com/svcplane/svcplane/internal/exemem"
	"github.com/svcplane/svcplane/internal/idlemem"
	"k8s.io/client-go/kubernetes"
)

// addStartupMemoryRelease hands the start's garbage back to the OS once
// the server is ready: building the OpenAPI documents and the route
// table, the bootstrap policy's writes and the informers' first lists
// leave tens of MB the Go runtime would otherwise keep for minutes. It
// runs once, then hands each later burst's garbage back when the server
// is quiet (idlemem); it changes no answer.
func addStartupMemoryRelease(g *genericapiserver.GenericAPIServer, client kubernetes.Interface) {
	g.AddPostStartHookOrDie("release-start-up-memory", func(hc genericapiserver.PostStartHookContext) error {
		go func() {
			err := wait.PollUntilContextCancel(hc, 100*time.Millisecond, true, func(ctx context.Context) (bool, error) {
				return client.Discovery().RESTClient().Get().AbsPath("/readyz").Do(ctx).Error() == nil, nil
			})
			if err != nil {
				return
			}
			// The controllers and informers start with readiness: let
			// their first lists land before releasing.
			select {
			case <-hc.Done():
				return
			case <-time.After(3 * time.Second):
			}
			debug.FreeOSMemory()
			// The start ran code a serving server does not run again
			// (the OpenAPI builders, the route installers, the policy
			// reconciler, every package's init): unmap the executable's
			// pages; what requests use faults back in (exemem).
			released, err := exemem.ReleaseMapped()
			klog.V(1).InfoS("Released the executable's mapped pages after the start", "bytes", released, "err", err)
			// From here on, the garbage of each burst of work goes back
			// once the server is quiet again (idlemem).
			idlemem.New().Run(hc)
		}()
		return nil
	})
}
