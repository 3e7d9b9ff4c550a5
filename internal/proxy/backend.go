package proxy

import (
	"context"
	"time"
)

// Backend is one IP family's proxier in any mode (nftables, iptables,
// ipvs, userspace): a bounded-frequency runner calls SyncProxyRules, and
// Run does what the mode needs beside the sync loop.
type Backend interface {
	// SyncProxyRules installs the backend's current snapshot; full asks
	// for a rewrite of everything the backend owns instead of the changes
	// since the last sync.
	SyncProxyRules(full bool) error
	// Run does the backend's work beside its syncs (the iptables canary
	// check, IPVS graceful termination) until ctx ends, then releases
	// what the backend holds open (the userspace listeners). resync asks
	// the sync loop for a sync.
	Run(ctx context.Context, resync func())
}

// SyncResult describes one sync of any backend.
type SyncResult struct {
	// Full: the sync rewrote everything (asked for, first, or after a
	// failure).
	Full bool
	// Changes counts what the sync wrote: nftables objects and elements,
	// iptables chains, IPVS and kube-ipvs0 operations, userspace portals.
	Changes int
	// RestoreBytes is the size of the iptables-restore input (iptables
	// backend only).
	RestoreBytes int
	Duration     time.Duration
}

// SyncedFunc is called by a backend after each sync with its result, the
// snapshot installed before it and the one this sync read (installed
// unless err is set).
type SyncedFunc func(res SyncResult, prev, cur *Snapshot, err error)
