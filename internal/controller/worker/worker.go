package worker

import (
	"context"
	"errors"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"
)

// Backoff, returned as the delay, retries with the queue's backoff without
// logging an error (a pod that fits no node yet).
const Backoff = time.Duration(-1)

// NewQueue returns a rate-limited queue named name (its metrics name).
func NewQueue[K comparable](name string) workqueue.TypedRateLimitingInterface[K] {
	return workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[K](),
		workqueue.TypedRateLimitingQueueConfig[K]{Name: name})
}

// Run waits for synced, then runs workers calling sync until ctx ends,
// and shuts the queue down.
func Run[K comparable](ctx context.Context, q workqueue.TypedRateLimitingInterface[K], workers int,
	sync func(context.Context, K) (time.Duration, error), synced ...cache.InformerSynced) {
	defer utilruntime.HandleCrash()
	defer q.ShutDown()
	if !cache.WaitForNamedCacheSyncWithContext(ctx, synced...) {
		return
	}
	for i := 0; i < workers; i++ {
		go wait.UntilWithContext(ctx, func(ctx context.Context) {
			for next(ctx, q, sync) {
			}
		}, time.Second)
	}
	<-ctx.Done()
}

func next[K comparable](ctx context.Context, q workqueue.TypedRateLimitingInterface[K], sync func(context.Context, K) (time.Duration, error)) bool {
	key, quit := q.Get()
	if quit {
		return false
	}
	defer q.Done(key)
	after, err := sync(ctx, key)
	switch {
	case err != nil && writeRace(err):
		// Optimistic concurrency at work (another writer was first): the
		// retry re-reads; nothing for an operator to act on.
		klog.V(2).InfoS("Sync raced another write; retrying", "key", key, "err", err)
		q.AddRateLimited(key)
	case err != nil:
		klog.ErrorS(err, "Sync failed; retrying", "key", key)
		q.AddRateLimited(key)
	case after == Backoff:
		q.AddRateLimited(key)
	case after > 0:
		q.Forget(key)
		q.AddAfter(key, after)
	default:
		q.Forget(key)
	}
	return true
}

// Transient marks an error the next attempt is expected to clear (an
// informer cache behind the API server): it is retried like any other and
// logged at verbosity 2, as upstream's controllers log such retries at
// info level.
func Transient(err error) error { return transientError{err} }

type transientError struct{ error }

func (e transientError) Unwrap() error { return e.error }

// writeRace reports an error that only says another writer was first
// (Conflict, AlreadyExists) or is Transient. k8s.io/endpointslice wraps
// the Conflict with %v, losing its type, so upstream's conflict message is
// matched too.
func writeRace(err error) bool {
	var t transientError
	return errors.As(err, &t) || apierrors.IsConflict(err) || apierrors.IsAlreadyExists(err) ||
		strings.Contains(err.Error(), "the object has been modified; please apply your changes to the latest version and try again")
}
