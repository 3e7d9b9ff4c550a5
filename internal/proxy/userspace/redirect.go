package userspace

import (
	"context"
	"fmt"
	"net/netip"
	"slices"
	"strconv"
	"strings"

	"k8s.io/klog/v2"
	"sigs.k8s.io/knftables"

	"github.com/svcplane/svcplane/internal/proxy"
	"github.com/svcplane/svcplane/internal/proxy/nftables"
)

// TableName is the nftables table of the userspace mode's redirects. Each
// IP family's proxier has its own: ip svcplane-userspace and ip6
// svcplane-userspace.
const TableName = "svcplane-userspace"

// Chains and map of the table.
const (
	chainPortals  = "portals"
	chainRefusals = "no-endpoints"
	// mapPortals maps daddr . l4proto . dport to the listener's port.
	mapPortals = "portal-ports"
)

// Portal sends traffic for Dst:Port/Proto to the local listener port To.
type Portal struct {
	Dst   netip.Addr
	Proto proxy.Protocol
	Port  uint16
	To    uint16
}

// portalKey is what the portal map looks a packet up by.
type portalKey struct {
	Dst   netip.Addr
	Proto proxy.Protocol
	Port  uint16
}

func (p Portal) key() portalKey { return portalKey{p.Dst, p.Proto, p.Port} }

// words are k's key fields as nft writes them.
func (k portalKey) words() []string {
	return []string{k.Dst.String(), protoWord(k.Proto), strconv.Itoa(int(k.Port))}
}

// element is k's entry in the portal map, sending to the listener port to
// (0: the key only, to delete it).
func (k portalKey) element(to uint16) *knftables.Element {
	e := &knftables.Element{Map: mapPortals, Key: k.words()}
	if to != 0 {
		e.Value = []string{strconv.Itoa(int(to))}
	}
	return e
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
// the prerouting and output nat hooks jump to a chain whose one rule
// redirects by a map (daddr . l4proto . dport → listener port), one
// element per portal; the input, forward and output filter hooks jump
// (for new flows) to a chain of one reject or drop rule per refusal.
//
// After a successful Sync it remembers what the table holds, and the next
// Sync writes only the difference: a new Service port is one element
// added, not the whole table rewritten, and a packet finds its portal by
// one map lookup however many there are.
type Redirector struct {
	nft    knftables.Interface
	family proxy.IPFamily
	// elems, when set, sends changes of portals only over netlink.
	elems elementSender
	// portals and refusals are what the table holds after the last
	// successful Sync (refusals as sorted rules); portals is nil when that
	// is not known (before the first Sync, after a failed one), and the
	// next Sync then writes everything.
	portals  map[portalKey]uint16
	refusals []string
}

// NewRedirector works on nft (a knftables.Interface for TableName in fam:
// NewNFT(fam)).
func NewRedirector(nft knftables.Interface, fam proxy.IPFamily) *Redirector {
	return &Redirector{nft: nft, family: fam}
}

// elementSender changes a map's elements in one transaction
// (nftables.ElementSender).
type elementSender interface {
	Send(obj knftables.Object, dels, adds []nftables.Element) error
	Close()
}

// WithNetlink makes r send changes of portals only over a lasting netlink
// socket of the real table instead of starting nft for them (an nft
// process costs 20-40 ms here, most of it waiting out the release of its
// socket; `bench proxy --real --mode userspace`: one new Service 28 → 12
// ms). Only for a Redirector on the real table (NewNFT); Close releases
// the socket.
func (r *Redirector) WithNetlink() *Redirector {
	r.elems = nftables.NewElementSender(nftFamily(r.family), TableName)
	return r
}

// Close releases the netlink socket, if any.
func (r *Redirector) Close() {
	if r.elems != nil {
		r.elems.Close()
	}
}

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
// transaction: everything when full or when what the table holds is not
// known, else only what changed since the last Sync (nothing to write: no
// transaction). A change of portals only goes over netlink when the
// Redirector has an element sender (WithNetlink); should that fail, the
// whole table is written through nft.
func (r *Redirector) Sync(ctx context.Context, portals []Portal, refusals []Refusal, full bool) error {
	want := make(map[portalKey]uint16, len(portals))
	for _, p := range portals {
		want[p.key()] = p.To
	}
	rules := make([]string, len(refusals))
	for i, rf := range refusals {
		rules[i] = rf.rule()
	}
	slices.Sort(rules)
	full = full || r.portals == nil
	var dels, adds []portalKey
	if !full {
		// Only the differences are sorted: a partial sync costs no
		// sort of every portal.
		for k, old := range r.portals {
			if to, ok := want[k]; !ok || to != old {
				dels = append(dels, k)
			}
		}
		for k, to := range want {
			if old, ok := r.portals[k]; !ok || old != to {
				adds = append(adds, k)
			}
		}
		sortKeys(dels)
		sortKeys(adds)
		refusalsSame := slices.Equal(rules, r.refusals)
		if refusalsSame && len(dels)+len(adds) == 0 {
			return nil
		}
		if refusalsSame && r.elems != nil {
			err := r.elems.Send(r.portalMap(), elements(dels, nil), elements(adds, want))
			if err == nil {
				r.portals = want
				return nil
			}
			klog.V(2).InfoS("Portal elements over netlink failed; writing the whole table", "err", err)
			full = true
		}
	}
	tx := r.nft.NewTransaction()
	if full {
		r.writeBase(tx)
		for _, k := range sortedKeys(want) {
			tx.Add(k.element(want[k]))
		}
		r.fillRefusals(tx, rules)
	} else {
		for _, k := range dels {
			tx.Delete(k.element(0))
		}
		for _, k := range adds {
			tx.Add(k.element(want[k]))
		}
		if !slices.Equal(rules, r.refusals) {
			r.fillRefusals(tx, rules)
		}
	}
	if err := r.nft.Run(ctx, tx); err != nil {
		r.portals, r.refusals = nil, nil
		return err
	}
	r.portals, r.refusals = want, rules
	return nil
}

// elements renders keys as map elements, with their ports in to (nil: keys
// only, to delete).
func elements(keys []portalKey, to map[portalKey]uint16) []nftables.Element {
	out := make([]nftables.Element, len(keys))
	for i, k := range keys {
		out[i].Key = strings.Join(k.words(), " . ")
		if to != nil {
			out[i].Value = strconv.Itoa(int(to[k]))
		}
	}
	return out
}

// portalMap declares the portal map of the Redirector's family.
func (r *Redirector) portalMap() *knftables.Map {
	addrType := "ipv4_addr"
	if r.family == proxy.IPv6 {
		addrType = "ipv6_addr"
	}
	return &knftables.Map{Name: mapPortals, Type: addrType + " . inet_proto . inet_service : inet_service"}
}

// writeBase (re)creates the table, its hooked chains, the portal chain
// and an empty portal map.
func (r *Redirector) writeBase(tx *knftables.Transaction) {
	tx.Add(&knftables.Table{Comment: knftables.PtrTo("svcplane userspace proxy portals and no-endpoint rejects")})
	hooked := func(name string, typ knftables.BaseChainType, hook knftables.BaseChainHook, prio knftables.BaseChainPriority, rule string) {
		tx.Add(&knftables.Chain{Name: name, Type: knftables.PtrTo(typ), Hook: knftables.PtrTo(hook), Priority: knftables.PtrTo(prio)})
		tx.Flush(&knftables.Chain{Name: name})
		tx.Add(&knftables.Rule{Chain: name, Rule: rule})
	}
	ip := "ip"
	if r.family == proxy.IPv6 {
		ip = "ip6"
	}
	tx.Add(r.portalMap())
	tx.Flush(&knftables.Map{Name: mapPortals})
	tx.Add(&knftables.Chain{Name: chainPortals})
	tx.Flush(&knftables.Chain{Name: chainPortals})
	tx.Add(&knftables.Rule{Chain: chainPortals,
		Rule: "meta l4proto { tcp, udp, sctp } redirect to :" + ip + " daddr . meta l4proto . th dport map @" + mapPortals})
	tx.Add(&knftables.Chain{Name: chainRefusals})
	for _, hook := range []knftables.BaseChainHook{knftables.PreroutingHook, knftables.OutputHook} {
		hooked(string(hook), knftables.NATType, hook, knftables.DNATPriority, "jump "+chainPortals)
	}
	for _, hook := range []knftables.BaseChainHook{knftables.InputHook, knftables.ForwardHook, knftables.OutputHook} {
		hooked("filter-"+string(hook), knftables.FilterType, hook, knftables.FilterPriority, "ct state new jump "+chainRefusals)
	}
}

// fillRefusals rewrites the refusal chain with rules (sorted).
func (r *Redirector) fillRefusals(tx *knftables.Transaction, rules []string) {
	tx.Flush(&knftables.Chain{Name: chainRefusals})
	for _, rule := range rules {
		tx.Add(&knftables.Rule{Chain: chainRefusals, Rule: rule})
	}
}

// sortedKeys returns m's keys in a fixed order (address, protocol, port),
// so that transactions are reproducible.
func sortedKeys(m map[portalKey]uint16) []portalKey {
	keys := make([]portalKey, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sortKeys(keys)
	return keys
}

// sortKeys sorts keys by address, protocol and port.
func sortKeys(keys []portalKey) {
	slices.SortFunc(keys, func(a, b portalKey) int {
		if c := a.Dst.Compare(b.Dst); c != 0 {
			return c
		}
		if c := strings.Compare(string(a.Proto), string(b.Proto)); c != 0 {
			return c
		}
		return int(a.Port) - int(b.Port)
	})
}

// Cleanup deletes the table of nft's family if it exists; call it once per
// family (NewNFT(proxy.IPv4), NewNFT(proxy.IPv6)).
func Cleanup(ctx context.Context, nft knftables.Interface) error {
	tx := nft.NewTransaction()
	tx.Add(&knftables.Table{})
	tx.Delete(&knftables.Table{})
	return nft.Run(ctx, tx)
}
