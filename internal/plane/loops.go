package plane

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/util/wait"
	genericapiserver "k8s.io/apiserver/pkg/server"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"
)

// loopStopTimeout bounds how long shutdown waits for the loops to end.
const loopStopTimeout = 10 * time.Second

// loops are the process's own long-running parts that talk to the server
// through its API (controllers, node agent, proxy). They run on one
// context that the server's pre-shutdown hook ends, so they stop while
// the server still serves: the controllers release their Lease, nothing
// logs "connection refused" from a server that went away under it.
type loops struct {
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	// ready waits until the server is ready (waitServerReady).
	ready func(ctx context.Context, cfg *rest.Config) error
}

func newLoops() *loops {
	ctx, cancel := context.WithCancel(context.Background())
	return &loops{ctx: ctx, cancel: cancel, ready: waitServerReady}
}

// start runs run in a goroutine until stop (or until the hook's context
// ends), once the server is ready (/readyz 200 over hc's loopback
// client): the system namespaces, the bootstrap RBAC policy and the
// kubernetes Service exist by then, so no loop starts with "namespace not
// found" or 403s from a server still bootstrapping (post-start hooks run
// concurrently).
func (l *loops) start(hc genericapiserver.PostStartHookContext, run func(ctx context.Context)) {
	l.wg.Add(1)
	go func() {
		defer l.wg.Done()
		ctx, cancel := context.WithCancel(l.ctx)
		defer cancel()
		ctx = klog.NewContext(ctx, logr.New(cancelQuiet{klog.Background().GetSink()}))
		stop := context.AfterFunc(hc, cancel)
		defer stop()
		if l.ready(ctx, hc.LoopbackClientConfig) != nil {
			return
		}
		run(ctx)
	}()
}

// waitServerReady polls the server's /readyz until it answers 200 or ctx
// ends.
func waitServerReady(ctx context.Context, cfg *rest.Config) error {
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	return wait.PollUntilContextCancel(ctx, 50*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		return client.Discovery().RESTClient().Get().AbsPath("/readyz").Do(ctx).Error() == nil, nil
	})
}

// stop ends every loop and waits for them, at most loopStopTimeout.
func (l *loops) stop() error {
	l.cancel()
	done := make(chan struct{})
	go func() { l.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(loopStopTimeout):
		klog.InfoS("Some loops did not stop in time; shutting down anyway", "timeout", loopStopTimeout)
	}
	return nil
}

// cancelQuiet is klog's log sink, except that an error which is only a
// loop's own cancellation at shutdown (context.Canceled: client-go's
// "Unexpected error when reading response body") is logged at V(2).
type cancelQuiet struct{ logr.LogSink }

func (s cancelQuiet) Error(err error, msg string, kv ...any) {
	if errors.Is(err, context.Canceled) {
		if s.LogSink.Enabled(2) {
			s.LogSink.Info(2, msg, append(kv, "err", err)...)
		}
		return
	}
	s.LogSink.Error(err, msg, kv...)
}

func (s cancelQuiet) WithValues(kv ...any) logr.LogSink {
	return cancelQuiet{s.LogSink.WithValues(kv...)}
}

func (s cancelQuiet) WithName(name string) logr.LogSink {
	return cancelQuiet{s.LogSink.WithName(name)}
}
