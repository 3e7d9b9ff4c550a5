// Package conntrack removes stale UDP conntrack entries after a sync, as
// kube-proxy does: UDP has no connection to close, so an entry created
// before the rules changed keeps sending a client's datagrams to an
// endpoint that is gone (or, for a Service that had no endpoints, nowhere)
// until it expires.
//
// After each sync, CleanStaleEntries lists the family's conntrack table
// and deletes UDP entries addressed to a Service IP:port or NodePort that
// has serving endpoints but whose reply source is none of them. Services
// without serving endpoints are left alone.
//
// Netlink (github.com/vishvananda/netlink), not the conntrack CLI: one
// dump and one batched delete per sync instead of a process per entry,
// no text parsing, and no dependency on conntrack-tools on the node.
//
// Guarantees: only UDP entries of Services in the snapshot are ever
// deleted; Interface has a Fake (fake.go) with the same matching rules.
package conntrack
