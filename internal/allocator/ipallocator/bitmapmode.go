package ipallocator

import (
	"context"
	"net/netip"

	corev1 "k8s.io/api/core/v1"

	"github.com/svcplane/svcplane/internal/allocator/bitmap"
	"github.com/svcplane/svcplane/internal/allocator/rangestore"
)

// BitmapMaxHostBits bounds bitmap ranges: IPv6 up to /108, as
// kube-apiserver's legacy allocator.
const BitmapMaxHostBits = 20

// BitmapAllocator is the legacy allocator: one range, its map stored as a
// RangeAllocation and changed by compare-and-swap.
type BitmapAllocator struct {
	r     *Range
	store rangestore.Interface
}

var _ Interface = &BitmapAllocator{}

// NewBitmapAllocator returns the allocator of r kept in store.
func NewBitmapAllocator(r *Range, store rangestore.Interface) *BitmapAllocator {
	return &BitmapAllocator{r: r, store: store}
}

// BitmapSize is the map size for r (what the store must be created with).
func BitmapSize(r *Range) uint64 { return r.Size() }

// Offset returns ip's offset in the range.
func (a *BitmapAllocator) Offset(ip netip.Addr) (uint64, bool) { return a.r.Offset(ip) }

// Family implements Interface.
func (a *BitmapAllocator) Family() corev1.IPFamily { return a.r.Family }

// Ranges implements Interface.
func (a *BitmapAllocator) Ranges() string { return a.r.String() }

// Allocate implements Interface.
func (a *BitmapAllocator) Allocate(ctx context.Context, ip netip.Addr, _ Owner, dryRun bool) error {
	off, ok := a.r.Offset(ip)
	if !ok {
		return &ErrNotInRange{IP: ip.String(), ValidRange: a.r.String()}
	}
	if dryRun {
		b, err := a.store.Get(ctx)
		if err != nil {
			return err
		}
		if b.Has(off) {
			return ErrAllocated
		}
		return nil
	}
	return a.store.Update(ctx, func(b *bitmap.Bitmap) error {
		if !b.Set(off) {
			return ErrAllocated
		}
		return nil
	})
}

// AllocateNext implements Interface.
func (a *BitmapAllocator) AllocateNext(ctx context.Context, _ Owner, dryRun bool) (netip.Addr, error) {
	var off uint64
	pick := func(b *bitmap.Bitmap) error {
		var ok bool
		if off, ok = b.AllocateNext(bitmap.IPStaticBand(a.r.Size())); !ok {
			return ErrFull
		}
		return nil
	}
	var err error
	if dryRun {
		var b *bitmap.Bitmap
		if b, err = a.store.Get(ctx); err == nil {
			err = pick(b)
		}
	} else {
		err = a.store.Update(ctx, pick)
	}
	if err != nil {
		return netip.Addr{}, err
	}
	return a.r.Addr(off), nil
}

// Release implements Interface.
func (a *BitmapAllocator) Release(ctx context.Context, ip netip.Addr) error {
	off, ok := a.r.Offset(ip)
	if !ok {
		return nil
	}
	return a.store.Update(ctx, func(b *bitmap.Bitmap) error {
		b.Clear(off)
		return nil
	})
}
