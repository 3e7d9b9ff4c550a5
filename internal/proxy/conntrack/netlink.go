package conntrack

import (
	"net"
	"net/netip"

	"github.com/vishvananda/netlink"
	"golang.org/x/sys/unix"

	"github.com/svcplane/svcplane/internal/proxy"
)

// New returns the kernel's conntrack table through netlink.
func New() Interface { return netlinkConntrack{} }

type netlinkConntrack struct{}

func inetFamily(f proxy.IPFamily) netlink.InetFamily {
	if f == proxy.IPv6 {
		return unix.AF_INET6
	}
	return unix.AF_INET
}

func (netlinkConntrack) ListEntries(family proxy.IPFamily) ([]Flow, error) {
	flows, err := netlink.ConntrackTableList(netlink.ConntrackTable, inetFamily(family))
	if err != nil {
		return nil, err
	}
	out := make([]Flow, 0, len(flows))
	for _, fl := range flows {
		out = append(out, toFlow(fl))
	}
	return out, nil
}

func (netlinkConntrack) ClearEntries(family proxy.IPFamily, filters ...Filter) (int, error) {
	if len(filters) == 0 {
		return 0, nil
	}
	n, err := netlink.ConntrackDeleteFilters(netlink.ConntrackTable, inetFamily(family), netlinkFilter(filters))
	return int(n), err
}

func toFlow(fl *netlink.ConntrackFlow) Flow {
	return Flow{Proto: fl.Forward.Protocol, OrigDst: addr(fl.Forward.DstIP), OrigDstPort: fl.Forward.DstPort,
		ReplySrc: addr(fl.Reverse.SrcIP)}
}

func addr(ip net.IP) netip.Addr {
	a, _ := netip.AddrFromSlice(ip)
	return a.Unmap()
}

// netlinkFilter matches a flow when any of the filters does.
type netlinkFilter []Filter

func (fs netlinkFilter) MatchConntrackFlow(fl *netlink.ConntrackFlow) bool {
	f := toFlow(fl)
	for _, filter := range fs {
		if filter.Matches(f) {
			return true
		}
	}
	return false
}
