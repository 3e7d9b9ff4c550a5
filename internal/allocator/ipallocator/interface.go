package ipallocator

import (
	"context"
	"net/netip"

	corev1 "k8s.io/api/core/v1"
)

// Owner is the Service an IP is allocated to.
type Owner struct {
	Namespace, Name string
}

// Interface allocates ClusterIPs of one IP family.
type Interface interface {
	Family() corev1.IPFamily
	// Allocate takes a requested IP: ErrAllocated if taken, *ErrNotInRange
	// if outside every range.
	Allocate(ctx context.Context, ip netip.Addr, owner Owner, dryRun bool) error
	// AllocateNext takes a free IP of the dynamic band (the static band when
	// the dynamic one is full); ErrFull when there is none.
	AllocateNext(ctx context.Context, owner Owner, dryRun bool) (netip.Addr, error)
	// Release frees ip; releasing a free IP is not an error.
	Release(ctx context.Context, ip netip.Addr) error
	// Ranges describes the valid ranges for error messages.
	Ranges() string
}
