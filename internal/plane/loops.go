package plane

import (
	"context"
	"sync"
	"time"

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
}

func newLoops() *loops {
	ctx, cancel := context.WithCancel(context.Background())
	return &loops{ctx: ctx, cancel: cancel}
}

// start runs run in a goroutine until stop (or until parent ends).
func (l *loops) start(parent context.Context, run func(ctx context.Context)) {
	l.wg.Add(1)
	go func() {
		defer l.wg.Done()
		ctx, cancel := context.WithCancel(l.ctx)
		defer cancel()
		stop := context.AfterFunc(parent, cancel)
		defer stop()
		run(ctx)
	}()
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
