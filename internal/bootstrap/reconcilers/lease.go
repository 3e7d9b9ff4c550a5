package reconcilers

import (
	"context"
	"errors"
	"net"
	"reflect"
	"slices"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/util/retry"
)

// ErrNoLeases is upstream's refusal to erase every endpoint.
var ErrNoLeases = errors.New("no API server IP addresses were listed in storage, refusing to erase all endpoints for the kubernetes Service")

// LeaseReconciler lists the API servers that hold a live lease.
type LeaseReconciler struct {
	adapter adapter
	leases  Leases

	mu      sync.Mutex
	stopped bool
}

// NewLease returns the lease reconciler.
func NewLease(client kubernetes.Interface, leases Leases) *LeaseReconciler {
	return &LeaseReconciler{adapter: adapter{client}, leases: leases}
}

// ReconcileEndpoints refreshes this server's lease and rewrites the
// endpoints from the live leases.
func (r *LeaseReconciler) ReconcileEndpoints(ctx context.Context, ip net.IP, ports []corev1.EndpointPort, reconcilePorts bool) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.stopped {
		return nil
	}
	if err := r.leases.Update(ctx, ip.String()); err != nil {
		return err
	}
	return r.reconcileRetrying(ctx, ports, reconcilePorts)
}

// reconcileRetrying runs doReconcile again when another server wrote the
// endpoints between this one's read and write (Conflict, AlreadyExists):
// the re-read usually finds them right already.
func (r *LeaseReconciler) reconcileRetrying(ctx context.Context, ports []corev1.EndpointPort, reconcilePorts bool) error {
	return retry.OnError(writeRetry, isWriteRace, func() error { return r.doReconcile(ctx, ports, reconcilePorts) })
}

// writeRetry spaces re-reads after a write race: several servers starting
// or stopping together all write the same two objects.
var writeRetry = wait.Backoff{Steps: 8, Duration: 10 * time.Millisecond, Factor: 2, Jitter: 0.5}

// isWriteRace reports an error another server's write caused.
func isWriteRace(err error) bool { return apierrors.IsConflict(err) || apierrors.IsAlreadyExists(err) }

// Resync rewrites the endpoints from the live leases without refreshing
// this server's own (on a lease change seen by the watch).
func (r *LeaseReconciler) Resync(ctx context.Context, ports []corev1.EndpointPort) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.stopped {
		return nil
	}
	return r.reconcileRetrying(ctx, ports, true)
}

// RemoveEndpoints deletes ip's lease and rewrites the endpoints.
func (r *LeaseReconciler) RemoveEndpoints(ctx context.Context, ip net.IP, ports []corev1.EndpointPort) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.leases.Remove(ctx, ip.String()); err != nil {
		return err
	}
	return retry.OnError(writeRetry, isWriteRace, func() error {
		err := r.doReconcile(ctx, ports, true)
		if !errors.Is(err, ErrNoLeases) {
			return err
		}
		// The last server going: no lease is left to list, but its own
		// address must not stay behind. Others' stale addresses are kept.
		e, exists, err := r.adapter.get(ctx)
		if err != nil || !exists {
			return err
		}
		rest := slices.DeleteFunc(AddressesOf(e), func(s string) bool { return s == ip.String() })
		e.Subsets = subsetFor(rest, ports)
		return r.adapter.write(ctx, e, exists)
	})
}

// StopReconciling implements Interface.
func (r *LeaseReconciler) StopReconciling() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.stopped = true
}

// Leases returns the lease store (for its change notifications).
func (r *LeaseReconciler) Leases() Leases { return r.leases }

func (r *LeaseReconciler) doReconcile(ctx context.Context, ports []corev1.EndpointPort, reconcilePorts bool) error {
	e, exists, err := r.adapter.get(ctx)
	if err != nil {
		return err
	}
	ips, err := r.leases.List(ctx)
	if err != nil {
		return err
	}
	if len(ips) == 0 {
		if len(AddressesOf(e)) == 0 {
			return nil // nothing listed, nothing to erase
		}
		return ErrNoLeases
	}
	slices.Sort(ips)
	want := subsetFor(ips, ports)
	if !reconcilePorts && len(e.Subsets) == 1 {
		want[0].Ports = e.Subsets[0].Ports
	}
	if exists && reflect.DeepEqual(e.Subsets, want) {
		return r.adapter.ensureSlice(ctx, e)
	}
	e.Subsets = want
	return r.adapter.write(ctx, e, exists)
}
