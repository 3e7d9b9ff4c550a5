package nftables

import (
	"context"
	"fmt"
	"maps"
	"os/exec"
	"slices"
	"sync"
	"time"

	"k8s.io/klog/v2"
	"sigs.k8s.io/knftables"

	"github.com/svcplane/svcplane/internal/proxy"
)

// Proxier owns one family's table.
type Proxier struct {
	cfg   Config
	nft   knftables.Interface
	state func() *proxy.Snapshot

	mu        sync.Mutex
	memory    proxy.MemoryRelease
	installed *ruleset // what the last successful sync left; nil = unknown
	lastSnap  *proxy.Snapshot
	// OnSynced, when set, is called after each sync with its result and
	// the snapshot it installed (conntrack cleanup, metrics, health).
	OnSynced proxy.SyncedFunc
}

// NewProxier returns a Proxier installing snapshots from state into nft
// (a knftables.Interface for cfg's family and TableName).
func NewProxier(cfg Config, nft knftables.Interface, state func() *proxy.Snapshot) *Proxier {
	return &Proxier{cfg: cfg, nft: nft, state: state}
}

// NewInterface opens the real nftables table for the family. The result
// is a *CLI: the Proxier sends its transactions as compact nft scripts.
func NewInterface(family proxy.IPFamily) (knftables.Interface, error) {
	nft, err := knftables.New(nftFamily(family), TableName)
	if err != nil {
		return nil, err
	}
	path, err := exec.LookPath("nft")
	if err != nil {
		return nil, err
	}
	return &CLI{Interface: nft, family: nftFamily(family), path: path}, nil
}

func nftFamily(f proxy.IPFamily) knftables.Family {
	if f == proxy.IPv6 {
		return knftables.IPv6Family
	}
	return knftables.IPv4Family
}

// Run waits for ctx to end: the nftables backend needs nothing beside its
// syncs. It implements proxy.Backend.
func (p *Proxier) Run(ctx context.Context, _ func()) { <-ctx.Done() }

// SyncProxyRules installs the current snapshot. An incremental sync
// re-plans only the service ports the snapshot's Changes name (all of
// them when Changes is nil or the node changed) and sends the difference
// to what the last sync installed; a full one (asked for, first, or after
// a failure) plans and rewrites the whole table.
func (p *Proxier) SyncProxyRules(full bool) (err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	start := time.Now()
	snap := p.state()
	res := proxy.SyncResult{Full: full || p.installed == nil}
	ctx := context.Background()
	var (
		w       writer
		run     func(context.Context) error
		desired *ruleset
	)
	if res.Full {
		ex, absent, err := p.existing(ctx)
		if err != nil {
			p.failed(res, snap, err)
			return err
		}
		p.installed = nil // replaced by desired; dropped early to halve peak memory
		desired = Plan(&p.cfg, snap)
		w, run = p.writeFullSync(desired, ex, absent)
		desired.forget() // written; partial syncs re-derive per-port elements

	} else {
		w, run = p.newWriter(false)
		desired = p.installed
		desired.delta = newDelta()
		p.replan(desired, snap)
		writeDelta(w, desired, desired.delta)
		desired.delta = nil
	}
	res.Changes = w.ops()
	if res.Changes > 0 {
		if err := run(ctx); err != nil {
			p.failed(res, snap, err)
			return fmt.Errorf("nftables sync (full=%v): %w", res.Full, err)
		}
	}
	res.Duration = time.Since(start)
	prev := p.lastSnap
	p.installed, p.lastSnap = desired, snap
	if res.Full {
		p.memory.AfterFullSync(time.Now())
	}
	klog.V(2).InfoS("Synced nftables rules", "full", res.Full, "changes", res.Changes, "elapsed", res.Duration)
	if p.OnSynced != nil {
		p.OnSynced(res, prev, snap, nil)
	}
	return nil
}

// newWriter returns a writer for one transaction and the function that
// runs it: for a partial sync of element changes only, netlink element
// messages when the interface can send them; else a compact nft script
// when the interface can run one; else a knftables transaction
// (knftables.Fake in tests).
func (p *Proxier) newWriter(full bool) (writer, func(context.Context) error) {
	if es, ok := p.nft.(elementSender); ok && !full {
		w := newElementWriter(p.nft, es.Family())
		return w, func(ctx context.Context) error {
			if w.useNetlink() {
				return es.SendElements(w.batches)
			}
			script, err := w.script()
			if err != nil {
				return err
			}
			return es.RunScript(ctx, script)
		}
	}
	if sr, ok := p.nft.(ScriptRunner); ok {
		w := newScriptWriter(p.nft, sr.Family())
		return w, func(ctx context.Context) error {
			script, err := w.script()
			if err != nil {
				return err
			}
			return sr.RunScript(ctx, script)
		}
	}
	w := &txWriter{tx: p.nft.NewTransaction()}
	return w, func(ctx context.Context) error { return p.nft.Run(ctx, w.tx) }
}

const tableComment = "rules for svcplane proxy"

// writeFullSync renders a full sync. Into a table that does not exist
// (absent), when the interface can send netlink elements, it is two
// transactions (fillWriter): objects by nft, elements over netlink.
// Otherwise it is one transaction.
func (p *Proxier) writeFullSync(desired *ruleset, ex existing, absent bool) (writer, func(context.Context) error) {
	if es, ok := p.nft.(elementSender); ok && absent {
		fw := newFillWriter(p.nft, es.Family())
		writeFull(fw, desired, ex, tableComment)
		if fw.err == nil {
			return fw, func(ctx context.Context) error {
				script, err := fw.script()
				if err != nil {
					return err
				}
				if err := es.RunScript(ctx, script); err != nil {
					return err
				}
				return es.SendElements(fw.batches)
			}
		}
		klog.ErrorS(fw.err, "Cannot encode the elements for netlink; writing them with nft")
	}
	w, run := p.newWriter(true)
	writeFull(w, desired, ex, tableComment)
	return w, run
}

// replan moves r from the last installed snapshot to snap: it takes back
// each changed port's old contribution (re-planned from the snapshot it
// was installed from) and adds its new one. Unchanged ports are not
// looked at, so the cost follows the size of the change.
func (p *Proxier) replan(r *ruleset, snap *proxy.Snapshot) {
	prev := p.lastSnap
	nodeSame := nodeRulesEqual(&prev.Node, &snap.Node)
	if !nodeSame {
		r.remove(planBase(&p.cfg, &prev.Node))
		r.add(planBase(&p.cfg, &snap.Node))
	}
	replanPort := func(name proxy.ServicePortName) {
		if svc := prev.Services[name]; svc != nil {
			r.remove(planServicePort(&p.cfg, svc, prev.Endpoints[name], &prev.Node))
		}
		if svc := snap.Services[name]; svc != nil {
			r.add(planServicePort(&p.cfg, svc, snap.Endpoints[name], &snap.Node))
		}
	}
	if snap.Changes != nil && nodeSame {
		for name := range snap.Changes.Ports {
			replanPort(name)
		}
		return
	}
	for name := range prev.Services {
		replanPort(name)
	}
	for name := range snap.Services {
		if prev.Services[name] == nil {
			replanPort(name)
		}
	}
}

// nodeRulesEqual: the node fields rules depend on (labels for topology,
// addresses for NodePorts) are equal.
func nodeRulesEqual(a, b *proxy.Node) bool {
	return a.Name == b.Name && maps.Equal(a.Labels, b.Labels) && slices.Equal(a.IPs, b.IPs)
}

func (p *Proxier) failed(res proxy.SyncResult, snap *proxy.Snapshot, err error) {
	p.installed = nil // unknown: the next sync is full and lists the table
	if p.OnSynced != nil {
		p.OnSynced(res, p.lastSnap, snap, err)
	}
}

// existing lists the table's objects when the installed state is unknown;
// otherwise it trusts what the last sync installed. absent: the table
// does not exist.
func (p *Proxier) existing(ctx context.Context) (ex existing, absent bool, err error) {
	if p.installed != nil {
		return p.installed.names(), false, nil
	}
	for i, l := range []struct {
		kind string
		into *[]string
	}{{"chain", &ex.chains}, {"set", &ex.sets}, {"map", &ex.maps}} {
		names, err := p.nft.List(ctx, l.kind)
		if knftables.IsNotFound(err) && i == 0 {
			// No table (listing chains fails only then): nothing else
			// to list.
			return ex, true, nil
		}
		if err != nil && !knftables.IsNotFound(err) {
			return ex, false, err
		}
		*l.into = names
	}
	return ex, false, nil
}

// Cleanup deletes the family's table if it exists.
func Cleanup(ctx context.Context, nft knftables.Interface) error {
	tx := nft.NewTransaction()
	tx.Add(&knftables.Table{})
	tx.Delete(&knftables.Table{})
	return nft.Run(ctx, tx)
}
