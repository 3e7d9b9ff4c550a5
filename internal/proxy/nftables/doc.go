// Package nftables is the proxy's nftables backend. A pure planner turns a
// proxy.Snapshot into a ruleset value (no I/O); the Proxier diffs it against
// what it last installed and sends one knftables transaction: everything on
// a full sync, only the changed elements, chains and sets on an incremental
// one (which never lists the table). README.md documents the ruleset.
//
// Guarantees: every transaction is atomic, so packets see either the old or
// the new ruleset; chains are flushed before they are deleted and map
// elements that point at a chain are removed first, so stale objects go
// without "resource busy" failures; after a failed sync the next one is
// full and re-reads what exists in the table.
package nftables
