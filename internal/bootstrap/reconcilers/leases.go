package reconcilers

import (
	"context"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/storage"
	"k8s.io/utils/clock"
)

// Lease timing, as kube-apiserver: a key lives 15 s and is refreshed with
// every reconcile (each 10 s).
const (
	LeaseTTL = 15 * time.Second
	// LeasePrefix is the key prefix below the etcd prefix (/registry).
	LeasePrefix = "/masterleases/"
)

// Leases records which API servers are alive.
type Leases interface {
	// Update creates or refreshes ip's lease.
	Update(ctx context.Context, ip string) error
	// Remove deletes ip's lease.
	Remove(ctx context.Context, ip string) error
	// List returns the IPs with a live lease.
	List(ctx context.Context) ([]string, error)
	// Changes signals (coalesced) whenever a lease appears or goes,
	// including by expiry, until ctx ends.
	Changes(ctx context.Context) (<-chan struct{}, error)
}

// EtcdLeases keeps leases as TTL keys holding an Endpoints object, as
// kube-apiserver does.
type EtcdLeases struct {
	storage storage.Interface
	ttl     uint64
}

// NewEtcdLeases returns leases on s (raw storage of core/v1 Endpoints)
// that live LeaseTTL.
func NewEtcdLeases(s storage.Interface) *EtcdLeases {
	return NewEtcdLeasesTTL(s, LeaseTTL)
}

// NewEtcdLeasesTTL returns leases on s that live ttl (whole seconds, at
// least one).
func NewEtcdLeasesTTL(s storage.Interface, ttl time.Duration) *EtcdLeases {
	return &EtcdLeases{storage: s, ttl: max(uint64(ttl/time.Second), 1)}
}

// Update implements Leases. Every call writes the key, which renews its
// TTL: the etcd3 store skips a write whose bytes are unchanged (keeping
// the old etcd lease, which then expires), so the object's generation is
// bumped each time, as kube-apiserver's lease reconciler does.
func (l *EtcdLeases) Update(ctx context.Context, ip string) error {
	return l.storage.GuaranteedUpdate(ctx, LeasePrefix+ip, &corev1.Endpoints{}, true, nil,
		func(obj runtime.Object, _ storage.ResponseMeta) (runtime.Object, *uint64, error) {
			e := obj.(*corev1.Endpoints)
			e.Name = ip
			e.Generation++
			e.Subsets = []corev1.EndpointSubset{{Addresses: []corev1.EndpointAddress{{IP: ip}}}}
			ttl := l.ttl
			return e, &ttl, nil
		}, nil)
}

// Remove implements Leases.
func (l *EtcdLeases) Remove(ctx context.Context, ip string) error {
	err := l.storage.Delete(ctx, LeasePrefix+ip, &corev1.Endpoints{}, nil, storage.ValidateAllObjectFunc, nil, storage.DeleteOptions{})
	if storage.IsNotFound(err) {
		return nil
	}
	return err
}

// List implements Leases.
func (l *EtcdLeases) List(ctx context.Context) ([]string, error) {
	list := &corev1.EndpointsList{}
	err := l.storage.GetList(ctx, LeasePrefix, storage.ListOptions{Recursive: true, Predicate: storage.Everything}, list)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range list.Items {
		for _, s := range e.Subsets {
			for _, a := range s.Addresses {
				out = append(out, a.IP)
			}
		}
	}
	return out, nil
}

// Changes implements Leases with an etcd watch on the lease keys.
func (l *EtcdLeases) Changes(ctx context.Context) (<-chan struct{}, error) {
	w, err := l.storage.Watch(ctx, LeasePrefix, storage.ListOptions{Recursive: true, Predicate: storage.Everything, ResourceVersion: ""})
	if err != nil {
		return nil, err
	}
	out := make(chan struct{}, 1)
	go func() {
		defer w.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case _, ok := <-w.ResultChan():
				if !ok {
					return
				}
				select {
				case out <- struct{}{}:
				default:
				}
			}
		}
	}()
	return out, nil
}

// FakeLeases is an in-memory Leases whose keys expire on an injected clock.
type FakeLeases struct {
	mu      sync.Mutex
	clock   clock.PassiveClock
	expires map[string]time.Time
	changes []chan struct{}
}

// NewFakeLeases returns empty leases on clk.
func NewFakeLeases(clk clock.PassiveClock) *FakeLeases {
	return &FakeLeases{clock: clk, expires: map[string]time.Time{}}
}

// Update implements Leases.
func (f *FakeLeases) Update(_ context.Context, ip string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.expires[ip] = f.clock.Now().Add(LeaseTTL)
	f.notify()
	return nil
}

// Remove implements Leases.
func (f *FakeLeases) Remove(_ context.Context, ip string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.expires, ip)
	f.notify()
	return nil
}

// List implements Leases; expired leases are gone.
func (f *FakeLeases) List(context.Context) ([]string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for ip, exp := range f.expires {
		if f.clock.Now().Before(exp) {
			out = append(out, ip)
		}
	}
	return out, nil
}

// Changes implements Leases.
func (f *FakeLeases) Changes(context.Context) (<-chan struct{}, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	ch := make(chan struct{}, 1)
	f.changes = append(f.changes, ch)
	return ch, nil
}

// Expire signals a change as an expiring key would (call after stepping
// the clock past a lease's TTL).
func (f *FakeLeases) Expire() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.notify()
}

func (f *FakeLeases) notify() {
	for _, ch := range f.changes {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
}
