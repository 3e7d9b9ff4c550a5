package reconcilers

import (
	"context"
	"net"
	"reflect"
	"slices"
	"sync"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes"
)

// MasterCountReconciler adds this server and trims the list to the
// expected number of servers (--apiserver-count), removing the addresses
// that sort after its own, as upstream: the list becomes right as every
// server reconciles.
type MasterCountReconciler struct {
	adapter adapter
	count   int

	mu      sync.Mutex
	stopped bool
}

// NewMasterCount returns the master-count reconciler.
func NewMasterCount(client kubernetes.Interface, count int) *MasterCountReconciler {
	return &MasterCountReconciler{adapter: adapter{client}, count: count}
}

// ReconcileEndpoints implements Interface.
func (r *MasterCountReconciler) ReconcileEndpoints(ctx context.Context, ip net.IP, ports []corev1.EndpointPort, reconcilePorts bool) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.stopped {
		return nil
	}
	e, exists, err := r.adapter.get(ctx)
	if err != nil {
		return err
	}
	ips := AddressesOf(e)
	if len(e.Subsets) != 1 || len(ips) > r.count {
		ips = nil // wrong shape: start over with ourselves
	}
	own := ip.String()
	if !slices.Contains(ips, own) {
		ips = append(ips, own)
		slices.Sort(ips)
		i := slices.Index(ips, own)
		for len(ips) > r.count {
			drop := (i + 1) % len(ips)
			ips = slices.Delete(ips, drop, drop+1)
			i = slices.Index(ips, own)
		}
	}
	curPorts := ports
	if !reconcilePorts && len(e.Subsets) == 1 && len(e.Subsets[0].Ports) > 0 {
		curPorts = e.Subsets[0].Ports
	}
	want := subsetFor(ips, curPorts)
	if exists && reflect.DeepEqual(e.Subsets, want) {
		return r.adapter.ensureSlice(ctx, e)
	}
	e.Subsets = want
	return r.adapter.write(ctx, e, exists)
}

// RemoveEndpoints implements Interface.
func (r *MasterCountReconciler) RemoveEndpoints(ctx context.Context, ip net.IP, ports []corev1.EndpointPort) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	e, exists, err := r.adapter.get(ctx)
	if err != nil || !exists {
		return err
	}
	ips := slices.DeleteFunc(AddressesOf(e), func(s string) bool { return s == ip.String() })
	portsNow := ports
	if len(e.Subsets) == 1 && len(e.Subsets[0].Ports) > 0 {
		portsNow = e.Subsets[0].Ports
	}
	e.Subsets = subsetFor(ips, portsNow)
	return r.adapter.write(ctx, e, exists)
}

// StopReconciling implements Interface.
func (r *MasterCountReconciler) StopReconciling() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.stopped = true
}
