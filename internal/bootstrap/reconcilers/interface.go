package reconcilers

import (
	"context"
	"net"

	corev1 "k8s.io/api/core/v1"
)

// Types accepted by --endpoint-reconciler-type.
const (
	TypeLease       = "lease"
	TypeMasterCount = "master-count"
	TypeNone        = "none"
)

// Interface reconciles the endpoints of one Service with this server's IP.
type Interface interface {
	// ReconcileEndpoints makes the endpoints list ip with ports (and, for
	// lease, every other live server); reconcilePorts also rewrites ports
	// that differ.
	ReconcileEndpoints(ctx context.Context, ip net.IP, ports []corev1.EndpointPort, reconcilePorts bool) error
	// RemoveEndpoints takes ip out.
	RemoveEndpoints(ctx context.Context, ip net.IP, ports []corev1.EndpointPort) error
	// StopReconciling makes ReconcileEndpoints a no-op from now on.
	StopReconciling()
}

// None is the reconciler that writes nothing.
type None struct{}

// ReconcileEndpoints implements Interface.
func (None) ReconcileEndpoints(context.Context, net.IP, []corev1.EndpointPort, bool) error {
	return nil
}

// RemoveEndpoints implements Interface.
func (None) RemoveEndpoints(context.Context, net.IP, []corev1.EndpointPort) error { return nil }

// StopReconciling implements Interface.
func (None) StopReconciling() {}
