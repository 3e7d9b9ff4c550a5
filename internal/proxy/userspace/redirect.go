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

// TableName is the nftables table of the userspace mode's redirects.
const TableName = "svcplane-userspace"

// Portal sends traffic for Dst:Port/Proto to the local listener port To.
type Portal struct {
	Dst   netip.Addr
	Proto proxy.Protocol
	Port  uint16
	To    uint16
}

// rule renders the portal's REDIRECT rule.
func (p Portal) rule() string {
	return fmt.Sprintf("ip daddr %s %s dport %d redirect to :%d", p.Dst, strings.ToLower(string(p.Proto)), p.Port, p.To)
}

// Redirector keeps the REDIRECT rules in one small nftables table: the
// prerouting and output nat hooks jump to a chain of one rule per portal.
type Redirector struct {
	nft knftables.Interface
}

// NewRedirector works on nft (a knftables.Interface for ip TableName).
func NewRedirector(nft knftables.Interface) *Redirector { return &Redirector{nft: nft} }

// NewNFT opens the real table.
func NewNFT() (knftables.Interface, error) { return knftables.New(knftables.IPv4Family, TableName) }

// Sync makes the table hold exactly the portals, in one transaction.
func (r *Redirector) Sync(ctx context.Context, portals []Portal) error {
	tx := r.nft.NewTransaction()
	tx.Add(&knftables.Table{Comment: knftables.PtrTo("svcplane userspace proxy portals")})
	tx.Add(&knftables.Chain{Name: "portals"})
	for _, hook := range []knftables.BaseChainHook{knftables.PreroutingHook, knftables.OutputHook} {
		name := string(hook)
		tx.Add(&knftables.Chain{Name: name, Type: knftables.PtrTo(knftables.NATType), Hook: knftables.PtrTo(hook),
			Priority: knftables.PtrTo(knftables.DNATPriority)})
		tx.Flush(&knftables.Chain{Name: name})
		tx.Add(&knftables.Rule{Chain: name, Rule: "jump portals"})
	}
	tx.Flush(&knftables.Chain{Name: "portals"})
	rules := make([]string, len(portals))
	for i, p := range portals {
		rules[i] = p.rule()
	}
	slices.Sort(rules)
	for _, rule := range rules {
		tx.Add(&knftables.Rule{Chain: "portals", Rule: rule})
	}
	return r.nft.Run(ctx, tx)
}

// Cleanup deletes the table if it exists.
func Cleanup(ctx context.Context, nft knftables.Interface) error {
	tx := nft.NewTransaction()
	tx.Add(&knftables.Table{})
	tx.Delete(&knftables.Table{})
	return nft.Run(ctx, tx)
}
