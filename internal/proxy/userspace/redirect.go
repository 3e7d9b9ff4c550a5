package userspace

import (
	"context"
	"fmt"
	"net/netip"
	"slices"
	"strings"

	"sigs.k8s.io/knftables"

	"github.com/svcplane/svcplane/internal/proxy"
)

// TableName is the nftables table of the userspace mode's redirects. Each
// IP family's proxier has its own: ip svcplane-userspace and ip6
// svcplane-userspace.
const TableName = "svcplane-userspace"

// Chains of the table.
const (
	chainPortals  = "portals"
	chainRefusals = "no-endpoints"
)

// Portal sends traffic for Dst:Port/Proto to the local listener port To.
type Portal struct {
	Dst   netip.Addr
	Proto proxy.Protocol
	Port  uint16
	To    uint16
}

// rule renders the portal's REDIRECT rule.
func (p Portal) rule() string {
	return fmt.Sprintf("%s daddr %s %s dport %d redirect to :%d", ipWord(p.Dst), p.Dst, protoWord(p.Proto), p.Port, p.To)
}

// Refusal answers new flows to Dst:Port/Proto in the table itself, as the
// kernel modes do for a service port without endpoints: rejected (TCP
// with a reset, UDP with ICMP port unreachable) when the port has no
// endpoints at all, dropped when Drop is set (a Local traffic policy and
// no endpoint on this node). An unspecified Dst (0.0.0.0 or ::) is a
// NodePort: it matches every local address of the family but loopback.
type Refusal struct {
	Dst   netip.Addr
	Proto proxy.Protocol
	Port  uint16
	Drop  bool
}

// rule renders the refusal's filter rule.
func (r Refusal) rule() string {
	ip := ipWord(r.Dst)
	match := fmt.Sprintf("%s daddr %s", ip, r.Dst)
	if r.Dst.IsUnspecified() {
		loopback := "127.0.0.0/8"
		if r.Dst.Is6() {
			loopback = "::1"
		}
		match = fmt.Sprintf("fib daddr type local %s daddr != %s", ip, loopback)
	}
	verdict := "reject"
	switch {
	case r.Drop:
		verdict = "drop"
	case r.Proto == proxy.TCP:
		verdict = "reject with tcp reset"
	}
	return fmt.Sprintf("%s %s dport %d %s", match, protoWord(r.Proto), r.Port, verdict)
}

func ipWord(a netip.Addr) string {
	if a.Is4() {
		return "ip"
	}
	return "ip6"
}

func protoWord(p proxy.Protocol) string { return strings.ToLower(string(p)) }

// Redirector keeps the rules of one IP family in one small nftables table:
// the prerouting and output nat hooks jump to a chain of one REDIRECT rule
// per portal; the input, forward and output filter hooks jump (for new
// flows) to a chain of one reject or drop rule per refusal.
type Redirector struct {
	nft knftables.Interface
}

// NewRedirector works on nft (a knftables.Interface for TableName in the
// proxier's family: NewNFT).
func NewRedirector(nft knftables.Interface) *Redirector { return &Redirector{nft: nft} }

// NewNFT opens the real table of one IP family (ip or ip6 TableName).
func NewNFT(fam proxy.IPFamily) (knftables.Interface, error) {
	return knftables.New(nftFamily(fam), TableName)
}

func nftFamily(fam proxy.IPFamily) knftables.Family {
	if fam == proxy.IPv6 {
		return knftables.IPv6Family
	}
	return knftables.IPv4Family
}

// Sync makes the table hold exactly the portals and refusals, in one
// transaction.
func (r *Redirector) Sync(ctx context.Context, portals []Portal, refusals []Refusal) error {
	tx := r.nft.NewTransaction()
	tx.Add(&knftables.Table{Comment: knftables.PtrTo("svcplane userspace proxy portals and no-endpoint rejects")})
	hooked := func(name string, typ knftables.BaseChainType, hook knftables.BaseChainHook, prio knftables.BaseChainPriority, rule string) {
		tx.Add(&knftables.Chain{Name: name, Type: knftables.PtrTo(typ), Hook: knftables.PtrTo(hook), Priority: knftables.PtrTo(prio)})
		tx.Flush(&knftables.Chain{Name: name})
		tx.Add(&knftables.Rule{Chain: name, Rule: rule})
	}
	tx.Add(&knftables.Chain{Name: chainPortals})
	tx.Add(&knftables.Chain{Name: chainRefusals})
	for _, hook := range []knftables.BaseChainHook{knftables.PreroutingHook, knftables.OutputHook} {
		hooked(string(hook), knftables.NATType, hook, knftables.DNATPriority, "jump "+chainPortals)
	}
	for _, hook := range []knftables.BaseChainHook{knftables.InputHook, knftables.ForwardHook, knftables.OutputHook} {
		hooked("filter-"+string(hook), knftables.FilterType, hook, knftables.FilterPriority, "ct state new jump "+chainRefusals)
	}
	fill := func(chain string, rules []string) {
		tx.Flush(&knftables.Chain{Name: chain})
		slices.Sort(rules)
		for _, rule := range rules {
			tx.Add(&knftables.Rule{Chain: chain, Rule: rule})
		}
	}
	rules := make([]string, len(portals))
	for i, p := range portals {
		rules[i] = p.rule()
	}
	fill(chainPortals, rules)
	rules = make([]string, len(refusals))
	for i, rf := range refusals {
		rules[i] = rf.rule()
	}
	fill(chainRefusals, rules)
	return r.nft.Run(ctx, tx)
}

// Cleanup deletes the table of nft's family if it exists; call it once per
// family (NewNFT(proxy.IPv4), NewNFT(proxy.IPv6)).
func Cleanup(ctx context.Context, nft knftables.Interface) error {
	tx := nft.NewTransaction()
	tx.Add(&knftables.Table{})
	tx.Delete(&knftables.Table{})
	return nft.Run(ctx, tx)
}
