package sim

import (
	"errors"
	"fmt"
	"math/big"
	"net/netip"
)

// ErrFull is returned when a pod CIDR has no free address left.
var ErrFull = errors.New("pod CIDR is full")

// maxHosts caps how much of a large (IPv6) pod CIDR is handed out; a node
// never runs more pods than that.
const maxHosts = 1 << 16

// cidrAllocator hands out the host addresses of one pod CIDR. Offset 0 is
// the network address and offset 1 the node's bridge (as kubenet's cbr0),
// and for IPv4 the last address is broadcast: none of them is given to a
// pod. Allocation is next-fit, so a freed address is reused only after the
// others, as the kubelet's host-local IPAM does.
type cidrAllocator struct {
	prefix netip.Prefix
	first  uint64 // lowest offset handed out
	size   uint64 // offsets first..first+size-1 are usable
	next   uint64 // next-fit cursor, relative to first
	used   map[uint64]bool
}

func newCIDRAllocator(p netip.Prefix) (*cidrAllocator, error) {
	p = p.Masked()
	hostBits := p.Addr().BitLen() - p.Bits()
	total := uint64(maxHosts)
	if hostBits < 17 {
		total = 1 << hostBits
	}
	first, size := uint64(2), uint64(0)
	switch {
	case p.Addr().Is4() && total > 3:
		size = total - 3 // network, bridge, broadcast
	case p.Addr().Is6() && total > 2:
		size = total - 2
	}
	if size == 0 {
		return nil, fmt.Errorf("pod CIDR %s is too small", p)
	}
	return &cidrAllocator{prefix: p, first: first, size: size, used: map[uint64]bool{}}, nil
}

func (a *cidrAllocator) allocate() (netip.Addr, error) {
	if uint64(len(a.used)) >= a.size {
		return netip.Addr{}, fmt.Errorf("%s: %w", a.prefix, ErrFull)
	}
	for {
		off := a.first + a.next
		a.next = (a.next + 1) % a.size
		if !a.used[off] {
			a.used[off] = true
			return addOffset(a.prefix.Addr(), off), nil
		}
	}
}

func (a *cidrAllocator) release(ip netip.Addr) {
	if off, ok := a.offset(ip); ok {
		delete(a.used, off)
	}
}

// take marks ip used (a pod adopted with its address).
func (a *cidrAllocator) take(ip netip.Addr) {
	if off, ok := a.offset(ip); ok && off >= a.first && off < a.first+a.size {
		a.used[off] = true
	}
}

func (a *cidrAllocator) offset(ip netip.Addr) (uint64, bool) {
	if !a.prefix.Contains(ip) {
		return 0, false
	}
	off := new(big.Int).Sub(new(big.Int).SetBytes(ip.AsSlice()), new(big.Int).SetBytes(a.prefix.Addr().AsSlice()))
	return off.Uint64(), off.IsUint64()
}

// addOffset returns base + off.
func addOffset(base netip.Addr, off uint64) netip.Addr {
	b := base.As16()
	carry := off
	for i := 15; i >= 0 && carry > 0; i-- {
		sum := uint64(b[i]) + carry&0xff
		b[i] = byte(sum)
		carry = carry>>8 + sum>>8
	}
	a := netip.AddrFrom16(b)
	if base.Is4() {
		return a.Unmap()
	}
	return a
}
