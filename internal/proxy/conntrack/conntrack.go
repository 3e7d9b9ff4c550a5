package conntrack

import (
	"net/netip"

	"github.com/svcplane/svcplane/internal/proxy"
)

// IPPROTO numbers of the protocols entries are matched on.
const (
	ProtoTCP  uint8 = 6
	ProtoUDP  uint8 = 17
	ProtoSCTP uint8 = 132
)

// Flow is the part of a conntrack entry cleanup looks at.
type Flow struct {
	Proto uint8
	// OrigDst and OrigDstPort: where the client sent it (Service IP:port,
	// or a node address and NodePort).
	OrigDst     netip.Addr
	OrigDstPort uint16
	// ReplySrc: who answers (the endpoint after DNAT; OrigDst without).
	ReplySrc netip.Addr
}

// Filter selects entries; zero fields match anything.
type Filter struct {
	Proto       uint8
	OrigDst     netip.Addr
	OrigDstPort uint16
	ReplySrc    netip.Addr
}

// Matches reports whether f selects the flow.
func (f Filter) Matches(fl Flow) bool {
	return (f.Proto == 0 || f.Proto == fl.Proto) &&
		(!f.OrigDst.IsValid() || f.OrigDst == fl.OrigDst) &&
		(f.OrigDstPort == 0 || f.OrigDstPort == fl.OrigDstPort) &&
		(!f.ReplySrc.IsValid() || f.ReplySrc == fl.ReplySrc)
}

// Interface lists and deletes conntrack entries of one family.
type Interface interface {
	ListEntries(family proxy.IPFamily) ([]Flow, error)
	// ClearEntries deletes every entry any filter matches and returns how
	// many went.
	ClearEntries(family proxy.IPFamily, filters ...Filter) (int, error)
}
