package nftables

import (
	"context"
	"fmt"
	"sync"
	"time"

	"k8s.io/klog/v2"
	"sigs.k8s.io/knftables"

	"github.com/svcplane/svcplane/internal/proxy"
)

// SyncResult describes one SyncProxyRules call.
type SyncResult struct {
	Full bool
	// Changes counts objects and elements sent (incremental syncs).
	Changes  int
	Duration time.Duration
}

// Proxier owns one family's table.
type Proxier struct {
	cfg   Config
	nft   knftables.Interface
	state func() *proxy.Snapshot

	mu        sync.Mutex
	installed *ruleset // what the last successful sync left; nil = unknown
	lastSnap  *proxy.Snapshot
	// OnSynced, when set, is called after each sync with its result and
	// the snapshot it installed (conntrack cleanup, metrics, health).
	OnSynced func(res SyncResult, prev, cur *proxy.Snapshot, err error)
}

// NewProxier returns a Proxier installing snapshots from state into nft
// (a knftables.Interface for cfg's family and TableName).
func NewProxier(cfg Config, nft knftables.Interface, state func() *proxy.Snapshot) *Proxier {
	return &Proxier{cfg: cfg, nft: nft, state: state}
}

// NewInterface opens the real nftables table for the family.
func NewInterface(family proxy.IPFamily) (knftables.Interface, error) {
	return knftables.New(nftFamily(family), TableName)
}

func nftFamily(f proxy.IPFamily) knftables.Family {
	if f == proxy.IPv6 {
		return knftables.IPv6Family
	}
	return knftables.IPv4Family
}

// SyncProxyRules installs the current snapshot. An incremental sync sends
// only the difference to what the last sync installed; a full one (asked
// for, first, or after a failure) rewrites the whole table.
func (p *Proxier) SyncProxyRules(full bool) (err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	start := time.Now()
	snap := p.state()
	desired := Plan(&p.cfg, snap)
	res := SyncResult{Full: full || p.installed == nil}
	ctx := context.Background()
	tx := p.nft.NewTransaction()
	if res.Full {
		ex, err := p.existing(ctx)
		if err != nil {
			p.failed(res, snap, err)
			return err
		}
		writeFull(tx, desired, ex, "rules for svcplane proxy")
		res.Changes = tx.NumOperations()
	} else {
		res.Changes = writeDiff(tx, p.installed, desired)
	}
	if tx.NumOperations() > 0 {
		if err := p.nft.Run(ctx, tx); err != nil {
			p.failed(res, snap, err)
			return fmt.Errorf("nftables sync (full=%v): %w", res.Full, err)
		}
	}
	res.Duration = time.Since(start)
	prev := p.lastSnap
	p.installed, p.lastSnap = desired, snap
	klog.V(2).InfoS("Synced nftables rules", "full", res.Full, "changes", res.Changes, "elapsed", res.Duration)
	if p.OnSynced != nil {
		p.OnSynced(res, prev, snap, nil)
	}
	return nil
}

func (p *Proxier) failed(res SyncResult, snap *proxy.Snapshot, err error) {
	p.installed = nil // unknown: the next sync is full and lists the table
	if p.OnSynced != nil {
		p.OnSynced(res, p.lastSnap, snap, err)
	}
}

// existing lists the table's objects when the installed state is unknown;
// otherwise it trusts what the last sync installed.
func (p *Proxier) existing(ctx context.Context) (existing, error) {
	if p.installed != nil {
		ex := existing{chains: sortedKeys(p.installed.chains)}
		for _, name := range sortedKeys(p.installed.sets) {
			if p.installed.sets[name].isMap {
				ex.maps = append(ex.maps, name)
			} else {
				ex.sets = append(ex.sets, name)
			}
		}
		return ex, nil
	}
	var ex existing
	for _, l := range []struct {
		kind string
		into *[]string
	}{{"chain", &ex.chains}, {"set", &ex.sets}, {"map", &ex.maps}} {
		names, err := p.nft.List(ctx, l.kind)
		if err != nil && !knftables.IsNotFound(err) {
			return ex, err
		}
		*l.into = names
	}
	return ex, nil
}

// Cleanup deletes the family's table if it exists.
func Cleanup(ctx context.Context, nft knftables.Interface) error {
	tx := nft.NewTransaction()
	tx.Add(&knftables.Table{})
	tx.Delete(&knftables.Table{})
	return nft.Run(ctx, tx)
}
