package ipallocator

import (
	"encoding/binary"
	"fmt"
	"net/netip"

	corev1 "k8s.io/api/core/v1"
)

// Range is the allocatable part of a CIDR: the network address is never
// handed out, nor, for IPv4, the broadcast address.
type Range struct {
	Prefix netip.Prefix
	Family corev1.IPFamily
	base   netip.Addr
	size   uint64
}

// NewRange returns the range of prefix. maxHostBits bounds the size: 64 for
// IPAddress mode (IPv6 up to /64), smaller for a bitmap.
func NewRange(prefix netip.Prefix, maxHostBits int) (*Range, error) {
	prefix = prefix.Masked()
	hostBits := prefix.Addr().BitLen() - prefix.Bits()
	if hostBits > maxHostBits {
		return nil, fmt.Errorf("service CIDR %s is too large; the largest allowed has %d host bits (/%d)",
			prefix, maxHostBits, prefix.Addr().BitLen()-maxHostBits)
	}
	r := &Range{Prefix: prefix, Family: corev1.IPv4Protocol, base: prefix.Addr().Next()}
	if prefix.Addr().Is6() {
		r.Family = corev1.IPv6Protocol
	}
	total := uint64(0)
	if hostBits < 64 {
		total = 1 << hostBits
	}
	switch {
	case hostBits == 64:
		r.size = ^uint64(0) // 2^64 - 1: all but the network address
	case r.Family == corev1.IPv4Protocol:
		r.size = total - min(total, 2)
	default:
		r.size = total - 1
	}
	if r.size == 0 {
		return nil, fmt.Errorf("service CIDR %s has no usable addresses", prefix)
	}
	return r, nil
}

// ParseRange parses a CIDR and returns its range.
func ParseRange(cidr string, maxHostBits int) (*Range, error) {
	p, err := netip.ParsePrefix(cidr)
	if err != nil {
		return nil, fmt.Errorf("invalid service CIDR %q: %w", cidr, err)
	}
	return NewRange(p, maxHostBits)
}

// Size is the number of allocatable addresses.
func (r *Range) Size() uint64 { return r.size }

// String returns the CIDR.
func (r *Range) String() string { return r.Prefix.String() }

// Offset returns the index of ip in the range.
func (r *Range) Offset(ip netip.Addr) (uint64, bool) {
	ip = ip.Unmap()
	if !r.Prefix.Contains(ip) || ip.Is4() != r.base.Is4() {
		return 0, false
	}
	d := low64(ip) - low64(r.base)
	if ip.Less(r.base) || d >= r.size {
		return 0, false
	}
	return d, true
}

// Addr returns the address at offset i (i < Size()).
func (r *Range) Addr(i uint64) netip.Addr {
	if r.base.Is4() {
		b := r.base.As4()
		binary.BigEndian.PutUint32(b[:], binary.BigEndian.Uint32(b[:])+uint32(i))
		return netip.AddrFrom4(b)
	}
	b := r.base.As16()
	binary.BigEndian.PutUint64(b[8:], binary.BigEndian.Uint64(b[8:])+i)
	return netip.AddrFrom16(b)
}

// low64 returns the low 64 bits of ip; ranges have at most 64 host bits, so
// offsets never need more.
func low64(ip netip.Addr) uint64 {
	if ip.Is4() {
		b := ip.As4()
		return uint64(binary.BigEndian.Uint32(b[:]))
	}
	b := ip.As16()
	return binary.BigEndian.Uint64(b[8:])
}
