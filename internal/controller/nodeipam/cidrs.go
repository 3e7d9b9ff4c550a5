package nodeipam

import (
	"fmt"
	"math/big"
	"net/netip"

	"github.com/svcplane/svcplane/internal/allocator/bitmap"
)

// maxSubnets bounds the map of one cluster CIDR.
const maxSubnets = 1 << 20

// cidrSet hands out the subnets of one cluster CIDR.
type cidrSet struct {
	cluster netip.Prefix
	mask    int
	used    *bitmap.Bitmap
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

// next takes the lowest free subnet.
func (s *cidrSet) next() (netip.Prefix, error) {
	for i := uint64(0); i < s.used.Size(); i++ {
		if s.used.Set(i) {
			return s.subnet(i), nil
		}
	}
	return netip.Prefix{}, fmt.Errorf("CIDR allocation failed; there are no remaining CIDRs left to allocate in the accepted range")
}
