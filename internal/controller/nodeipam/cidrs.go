package nodeipam

import (
	"fmt"
	"math/big"
	"net/netip"

	"github.com/svcplane/svcplane/internal/allocator/bitmap"
)

// maxSubnets bounds the map of one cluster CIDR.
const maxSubnets = 1 << 20

// cidrSet hands out the subnets of one cluster CIDR, next-fit as
// upstream's cidrset.CidrSet: the search starts after the subnet handed out
// last, so a released subnet (a deleted Node's) is not given to the next
// Node but only once the allocator has gone round the whole range.
type cidrSet struct {
	cluster netip.Prefix
	mask    int
	used    *bitmap.Bitmap
	// nextCandidate is where the next search starts (upstream's field);
	// only next moves it.
	nextCandidate uint64
}

func newCIDRSet(cluster netip.Prefix, mask int) (*cidrSet, error) {
	cluster = cluster.Masked()
	if mask < cluster.Bits() || mask > cluster.Addr().BitLen() {
		return nil, fmt.Errorf("node CIDR mask /%d does not fit cluster CIDR %s", mask, cluster)
	}
	if mask-cluster.Bits() > 20 {
		return nil, fmt.Errorf("cluster CIDR %s holds more than %d /%d subnets", cluster, maxSubnets, mask)
	}
	return &cidrSet{cluster: cluster, mask: mask, used: bitmap.New(1 << (mask - cluster.Bits()))}, nil
}

// subnet returns the i-th subnet.
func (s *cidrSet) subnet(i uint64) netip.Prefix {
	base := new(big.Int).SetBytes(s.cluster.Addr().AsSlice())
	shift := uint(s.cluster.Addr().BitLen() - s.mask)
	base.Add(base, new(big.Int).Lsh(new(big.Int).SetUint64(i), shift))
	b := base.FillBytes(make([]byte, s.cluster.Addr().BitLen()/8))
	addr, _ := netip.AddrFromSlice(b)
	return netip.PrefixFrom(addr, s.mask)
}

// index returns the number of the subnet p, if p is one of this set's.
func (s *cidrSet) index(p netip.Prefix) (uint64, bool) {
	if p.Bits() != s.mask || !s.cluster.Contains(p.Addr()) {
		return 0, false
	}
	diff := new(big.Int).Sub(new(big.Int).SetBytes(p.Addr().AsSlice()), new(big.Int).SetBytes(s.cluster.Addr().AsSlice()))
	diff.Rsh(diff, uint(s.cluster.Addr().BitLen()-s.mask))
	return diff.Uint64(), true
}

// occupy marks p used (a Node already has it).
func (s *cidrSet) occupy(p netip.Prefix) {
	if i, ok := s.index(p.Masked()); ok {
		s.used.Set(i)
	}
}

// release frees p.
func (s *cidrSet) release(p netip.Prefix) {
	if i, ok := s.index(p.Masked()); ok {
		s.used.Clear(i)
	}
}

// next takes the first free subnet from nextCandidate on, wrapping round.
func (s *cidrSet) next() (netip.Prefix, error) {
	size := s.used.Size()
	for n, i := uint64(0), s.nextCandidate; n < size; n, i = n+1, (i+1)%size {
		if s.used.Set(i) {
			s.nextCandidate = (i + 1) % size
			return s.subnet(i), nil
		}
	}
	return netip.Prefix{}, fmt.Errorf("CIDR allocation failed; there are no remaining CIDRs left to allocate in the accepted range")
}
