package ipallocator

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/netip"
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/svcplane/svcplane/internal/allocator/bitmap"
)

// Labels kube-apiserver puts on the IPAddress objects it allocates.
const (
	LabelIPFamily    = "ipaddress.kubernetes.io/ip-family"
	LabelManagedBy   = "ipaddress.kubernetes.io/managed-by"
	ManagedByService = "ipallocator.k8s.io"
)

// randomTries is how many random picks are tried before scanning.
const randomTries = 32

// maxScan bounds a linear scan for a free IP in huge (IPv6) ranges, where
// random picks essentially never collide.
const maxScan = 1 << 21

// IPAddressAllocator allocates by creating IPAddress objects.
type IPAddressAllocator struct {
	family corev1.IPFamily
	store  IPAddressStore
	ranges func() []*Range

	mu    sync.Mutex
	taken map[netip.Addr]struct{}
}

var _ Interface = &IPAddressAllocator{}

// NewIPAddressAllocator returns an allocator for family over the ranges
// that ranges returns (the usable ServiceCIDRs, re-read on every call).
func NewIPAddressAllocator(family corev1.IPFamily, store IPAddressStore, ranges func() []*Range) *IPAddressAllocator {
	return &IPAddressAllocator{family: family, store: store, ranges: ranges, taken: map[netip.Addr]struct{}{}}
}

// Family returns the IP family.
func (a *IPAddressAllocator) Family() corev1.IPFamily { return a.family }

// Observe records that an IPAddress exists (or no longer does); an informer
// feeds it so that random picks avoid IPs other servers took.
func (a *IPAddressAllocator) Observe(ip netip.Addr, exists bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if exists {
		a.taken[ip] = struct{}{}
	} else {
		delete(a.taken, ip)
	}
}

// Ranges returns the usable CIDRs, comma-separated.
func (a *IPAddressAllocator) Ranges() string {
	var s []string
	for _, r := range a.ranges() {
		s = append(s, r.String())
	}
	return strings.Join(s, ",")
}

func (a *IPAddressAllocator) rangeOf(ip netip.Addr) *Range {
	for _, r := range a.ranges() {
		if _, ok := r.Offset(ip); ok {
			return r
		}
	}
	return nil
}

// Contains reports whether ip lies in one of the usable ranges.
func (a *IPAddressAllocator) Contains(ip netip.Addr) bool { return a.rangeOf(ip) != nil }

// Allocate takes a requested IP.
func (a *IPAddressAllocator) Allocate(ctx context.Context, ip netip.Addr, owner Owner, dryRun bool) error {
	if a.rangeOf(ip) == nil {
		return &ErrNotInRange{IP: ip.String(), ValidRange: a.Ranges()}
	}
	if dryRun {
		if _, err := a.store.Get(ctx, ip.String()); err == nil {
			return ErrAllocated
		} else if !apierrors.IsNotFound(err) {
			return err
		}
		return nil
	}
	err := a.store.Create(ctx, a.object(ip, owner))
	if apierrors.IsAlreadyExists(err) {
		a.Observe(ip, true)
		return ErrAllocated
	}
	if err == nil {
		a.Observe(ip, true)
	}
	return err
}

// AllocateNext takes a free IP from the first range that has one.
func (a *IPAddressAllocator) AllocateNext(ctx context.Context, owner Owner, dryRun bool) (netip.Addr, error) {
	for _, r := range a.ranges() {
		for {
			ip, ok := a.reserve(r)
			if !ok {
				break // full as far as we know: next range
			}
			if dryRun {
				a.Observe(ip, false)
				return ip, nil
			}
			err := a.store.Create(ctx, a.object(ip, owner))
			if err == nil {
				return ip, nil
			}
			if !apierrors.IsAlreadyExists(err) {
				a.Observe(ip, false)
				return netip.Addr{}, err
			}
			// Taken by someone we had not heard of yet: it stays marked.
		}
	}
	return netip.Addr{}, ErrFull
}

// Release deletes the IPAddress of ip.
func (a *IPAddressAllocator) Release(ctx context.Context, ip netip.Addr) error {
	if err := a.store.Delete(ctx, ip.String()); err != nil {
		return err
	}
	a.Observe(ip, false)
	return nil
}

// reserve picks an IP of r that is not known to be taken and marks it
// taken, so that concurrent callers in this process pick different ones.
func (a *IPAddressAllocator) reserve(r *Range) (netip.Addr, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	static := bitmap.IPStaticBand(r.Size())
	off, ok := a.freeIn(r, static, r.Size())
	if !ok {
		off, ok = a.freeIn(r, 0, static)
	}
	if !ok {
		return netip.Addr{}, false
	}
	ip := r.Addr(off)
	a.taken[ip] = struct{}{}
	return ip, true
}

// freeIn returns an offset of [lo, hi) not known to be taken: random picks
// first, then a bounded linear scan from a random start.
func (a *IPAddressAllocator) freeIn(r *Range, lo, hi uint64) (uint64, bool) {
	if lo >= hi {
		return 0, false
	}
	n := hi - lo
	for i := 0; i < randomTries; i++ {
		off := lo + rand.Uint64N(n)
		if _, taken := a.taken[r.Addr(off)]; !taken {
			return off, true
		}
	}
	start := rand.Uint64N(n)
	for i := uint64(0); i < min(n, maxScan); i++ {
		off := lo + (start+i)%n
		if _, taken := a.taken[r.Addr(off)]; !taken {
			return off, true
		}
	}
	return 0, false
}

func (a *IPAddressAllocator) object(ip netip.Addr, owner Owner) *networkingv1.IPAddress {
	return NewIPAddress(ip, owner)
}

// NewIPAddress returns the IPAddress object recording that owner holds ip,
// with kube-apiserver's labels and parent reference.
func NewIPAddress(ip netip.Addr, owner Owner) *networkingv1.IPAddress {
	family := corev1.IPv4Protocol
	if !ip.Unmap().Is4() {
		family = corev1.IPv6Protocol
	}
	return &networkingv1.IPAddress{
		ObjectMeta: metav1.ObjectMeta{
			Name: ip.String(),
			Labels: map[string]string{
				LabelIPFamily:  string(family),
				LabelManagedBy: ManagedByService,
			},
		},
		Spec: networkingv1.IPAddressSpec{ParentRef: &networkingv1.ParentReference{
			Group: "", Resource: "services", Namespace: owner.Namespace, Name: owner.Name,
		}},
	}
}

// String describes the allocator.
func (a *IPAddressAllocator) String() string {
	return fmt.Sprintf("IPAddress allocator %s [%s]", a.family, a.Ranges())
}
