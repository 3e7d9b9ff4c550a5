package iptables

import (
	"bytes"
	"context"
	"fmt"
	"sync"
	"time"

	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	"github.com/svcplane/svcplane/internal/bootstrap/periodic"
	"github.com/svcplane/svcplane/internal/proxy"
	"github.com/svcplane/svcplane/internal/proxy/iptables/iptext"
)

// jump is a rule in a builtin chain that sends traffic into ours.
type jump struct {
	table       Table
	chain, rule string
}

const (
	ruleNew      = "-m conntrack --ctstate NEW "
	cmtPortals   = `-m comment --comment "kubernetes service portals" -j ` + chainServices
	cmtExternal  = `-m comment --comment "kubernetes externally-visible service portals" -j ` + chainExternalServices
	cmtFirewall  = `-m comment --comment "kubernetes load balancer firewall" -j ` + chainProxyFirewall
	cmtHealth    = `-m comment --comment "kubernetes health check service ports" -j ` + chainNodePorts
	cmtForward   = `-m comment --comment "kubernetes forwarding rules" -j ` + chainForward
	cmtPostroute = `-m comment --comment "kubernetes postrouting rules" -j ` + chainPostrouting
)

// jumps are upstream's jump rules, in the order they end up in each chain.
var jumps = []jump{
	{TableFilter, "INPUT", ruleNew + cmtFirewall},
	{TableFilter, "INPUT", cmtHealth},
	{TableFilter, "INPUT", ruleNew + cmtExternal},
	{TableFilter, "FORWARD", ruleNew + cmtFirewall},
	{TableFilter, "FORWARD", cmtForward},
	{TableFilter, "FORWARD", ruleNew + cmtPortals},
	{TableFilter, "FORWARD", ruleNew + cmtExternal},
	{TableFilter, "OUTPUT", ruleNew + cmtFirewall},
	{TableFilter, "OUTPUT", ruleNew + cmtPortals},
	{TableNAT, "PREROUTING", cmtPortals},
	{TableNAT, "OUTPUT", cmtPortals},
	{TableNAT, "POSTROUTING", cmtPostroute},
}

// nftChunkChains is the restore size for the nft variant when creating
// chains (about 23 services of 10 endpoints); rewriting existing chains
// uses 4×, as each restore also pays for reading the table. Measured on
// 5,000 Services × 10 endpoints: 250 → 2.5 s into empty tables; 1,000 →
// 7 s over existing ones (250 → 19 s).
const nftChunkChains = 250

// canaryTables are where the canary chain lives.
var canaryTables = []Table{TableMangle, TableNAT, TableFilter}

// Proxier owns one family's KUBE-* chains.
type Proxier struct {
	cfg   Config
	ipt   Interface
	state func() *proxy.Snapshot
	clock clock.WithTicker

	// ChunkChains > 0 splits the service chains of a sync over COMMIT
	// sections (transactions) of about that many chains
	// (iptables-nft-restore --noflush slows down quadratically with the
	// size of one transaction); the shared chains and deletions come in
	// the last one. A sync whose service chains fit in one chunk, or
	// ChunkChains 0, is one transaction. Every sync is one restore process.
	ChunkChains int

	mu        sync.Mutex
	memory    proxy.MemoryRelease
	installed *Ruleset // what the last successful sync left; nil = unknown
	lastSnap  *proxy.Snapshot
	// OnSynced, when set, is called after each sync with its result, the
	// previous and the current snapshot (conntrack cleanup, metrics).
	OnSynced proxy.SyncedFunc
	// CanaryInterval is how often Run checks the canary chains (0: every
	// minute).
	CanaryInterval time.Duration
}

// NewProxier returns a Proxier installing snapshots from state through ipt.
func NewProxier(cfg Config, ipt Interface, state func() *proxy.Snapshot, clk clock.WithTicker) *Proxier {
	if clk == nil {
		clk = clock.RealClock{}
	}
	p := &Proxier{cfg: cfg, ipt: ipt, state: state, clock: clk}
	if ipt.Variant() == "nft" {
		p.ChunkChains = nftChunkChains
	}
	return p
}

// SyncProxyRules installs the current snapshot. A partial sync restores
// only chains whose rules changed and deletes the ones that went away; a
// full one (asked for, first, after a failure or a flush the canary
// caught) rewrites every chain. When the installed state is unknown it
// first reads the tables to find stale per-Service chains and missing
// jump rules.
func (p *Proxier) SyncProxyRules(full bool) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	start := p.clock.Now()
	ctx := context.Background()
	snap := p.state()
	var changed map[proxy.ServicePortName]struct{}
	if snap.Changes != nil && p.installed != nil {
		// p.installed is the plan of the snapshot before this one.
		changed = snap.Changes.Ports
		if changed == nil {
			changed = map[proxy.ServicePortName]struct{}{}
		}
	}
	desired := planFrom(&p.cfg, snap, p.installed, changed)
	res := proxy.SyncResult{Full: full || p.installed == nil}
	prev := p.installed
	var stale map[Table][]string
	var missing []jump
	if res.Full {
		var err error
		if stale, missing, err = p.prepareFull(ctx); err != nil {
			return p.failed(res, snap, err)
		}
		prev = nil
	}
	rp := diffRulesets(prev, desired, stale)
	rp.jumps = missing
	res.Changes = rp.changes()
	chunk := p.ChunkChains
	if len(stale[TableNAT]) > 0 || (res.Full && p.installed != nil) {
		chunk *= 4 // rewriting existing chains: each restore's fixed cost dominates
	}
	// One process reads every chunk: each COMMIT is its own transaction,
	// and the tool starts (and reads the kernel's state) once.
	if input := bytes.Join(rp.texts(chunk), nil); len(input) > 0 {
		res.RestoreBytes = len(input)
		if err := p.ipt.Restore(ctx, input); err != nil {
			return p.failed(res, snap, fmt.Errorf("iptables-restore (full=%v): %w", res.Full, err))
		}
	}
	res.Duration = p.clock.Since(start)
	prevSnap := p.lastSnap
	desired.compact()
	p.installed, p.lastSnap = desired, snap
	if res.Full {
		p.memory.AfterFullSync(p.clock.Now())
	}
	klog.V(2).InfoS("Synced iptables rules", "full", res.Full, "changes", res.Changes, "bytes", res.RestoreBytes, "elapsed", res.Duration)
	if p.OnSynced != nil {
		p.OnSynced(res, prevSnap, snap, nil)
	}
	return nil
}

// prepareFull returns, when the installed state is unknown, the
// per-Service chains that exist (so stale ones go) and the jump rules
// missing from the builtin chains; otherwise the chains it installed.
func (p *Proxier) prepareFull(ctx context.Context) (map[Table][]string, []jump, error) {
	stale := map[Table][]string{}
	if p.installed != nil {
		for _, t := range writtenTables {
			stale[t] = p.installed.Chains(t)
		}
		return stale, nil, nil
	}
	var missing []jump
	for _, t := range []Table{TableFilter, TableNAT} {
		out, err := p.ipt.Save(ctx, t)
		if err != nil {
			return nil, nil, err
		}
		tables, err := iptext.ParseSave(string(out))
		if err != nil {
			return nil, nil, err
		}
		tt := tables[string(t)]
		if tt == nil {
			tt = &iptext.Table{}
		}
		for _, c := range tt.Order {
			if isOwnedServiceChain(c) {
				stale[t] = append(stale[t], c)
			}
		}
		for _, j := range jumps {
			if j.table == t && !hasJump(tt.Rules[j.chain], jumpTarget(j.rule)) {
				missing = append(missing, j)
			}
		}
	}
	return stale, missing, nil
}

// hasJump reports whether a builtin chain already jumps to target.
func hasJump(rules []string, target string) bool {
	for _, r := range rules {
		if jumpTarget(r) == target {
			return true
		}
	}
	return false
}

func (p *Proxier) failed(res proxy.SyncResult, snap *proxy.Snapshot, err error) error {
	p.installed = nil // unknown: the next sync is full and lists the tables
	if p.OnSynced != nil {
		p.OnSynced(res, p.lastSnap, snap, err)
	}
	return err
}

// ForceFullSync makes the next sync full and re-read the tables.
func (p *Proxier) ForceFullSync() {
	p.mu.Lock()
	p.installed = nil
	p.mu.Unlock()
}

// CanaryPresent reports whether every canary chain still exists.
func (p *Proxier) CanaryPresent(ctx context.Context) (bool, error) {
	for _, t := range canaryTables {
		ok, err := p.ipt.ChainExists(ctx, t, ChainCanary)
		if err != nil || !ok {
			return false, err
		}
	}
	return true, nil
}

// CheckCanary forces a full resync and calls resync when a canary chain
// is gone (the tables were flushed by someone else). It reports whether it
// did. Monitor calls it periodically.
func (p *Proxier) CheckCanary(ctx context.Context, resync func()) bool {
	ok, err := p.CanaryPresent(ctx)
	if err != nil {
		klog.ErrorS(err, "Checking the iptables canary failed")
		return false
	}
	p.mu.Lock()
	synced := p.installed != nil
	p.mu.Unlock()
	if ok || !synced {
		return false
	}
	klog.InfoS("iptables canary chain missing; the tables were flushed, resyncing everything", "chain", ChainCanary)
	p.ForceFullSync()
	if resync != nil {
		resync()
	}
	return true
}

// Run checks the canary chains every CanaryInterval until ctx ends
// (Monitor); it implements proxy.Backend.
func (p *Proxier) Run(ctx context.Context, resync func()) {
	Monitor(ctx, p.clock, p.CanaryInterval, p, resync)
}

// Monitor checks the canary every interval (a minute if it is not
// positive) until ctx ends.
func Monitor(ctx context.Context, clk clock.WithTicker, interval time.Duration, p *Proxier, resync func()) {
	if interval <= 0 {
		interval = time.Minute
	}
	periodic.Run(ctx, clk, interval, nil, "Canary check", func(ctx context.Context) error {
		p.CheckCanary(ctx, resync)
		return nil
	})
}
