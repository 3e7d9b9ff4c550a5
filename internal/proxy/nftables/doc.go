// Package nftables is the proxy's nftables backend. A pure planner turns
// the base configuration and each service port into a contribution (no
// I/O); the Proxier keeps the table as the reference-counted sum of them.
// A full sync writes everything; a partial one re-plans only the ports
// the snapshot names as changed and sends only the difference (never
// listing the table). Transactions go to nft as scripts with each set's
// elements in one statement (NewInterface's CLI); a partial sync of
// elements only, and the elements of a full sync into a table that does
// not exist yet, go as netlink set-element messages instead (netlink.go,
// elemcodec.go); any other knftables.Interface (knftables.Fake in tests)
// gets knftables transactions. ElementSender (elements.go) lends that
// netlink path to other tables (the userspace mode's portal map).
// README.md documents the ruleset.
//
// Guarantees: every sync is atomic, so packets see either the old or the
// new ruleset (a sync is one transaction, except a full sync into a table
// that does not exist, whose first transaction adds objects that match
// no packet until the second adds the elements); chains are flushed
// before they are deleted and map elements that point at a chain are
// removed first, so stale objects go without "resource busy" failures;
// after a failed sync the next one is full and re-reads what exists in
// the table; a partial sync leaves the table exactly as a full sync of
// the same snapshot would.
package nftables
