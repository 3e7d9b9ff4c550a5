package app

import (
	"context"
	"sync"

	"k8s.io/klog/v2"

	"github.com/svcplane/svcplane/internal/proxy"
	"github.com/svcplane/svcplane/internal/proxy/healthcheck"
	"github.com/svcplane/svcplane/internal/proxy/runner"
	"github.com/svcplane/svcplane/internal/proxy/tracker"
)

// family is one IP family's tracker, backend and bounded-frequency
// runner. One runner per family: a family whose syncs fail retries on its
// own without forcing full syncs on the other.
type family struct {
	fam     proxy.IPFamily
	tracker *tracker.Tracker
	backend proxy.Backend
	runner  *runner.BoundedFrequencyRunner
}

// dualStack is the proxy's families, the first one primary (kube-proxy's
// meta-proxier, with one runner per family instead of one for both).
type dualStack []*family

// newDualStack builds a family of the mode for each of fams. A second
// family whose backend can't be built is dropped with a log.
func newDualStack(cfg *Config, deps Deps, mode, nodeName string, fams []proxy.IPFamily, obs *observers) (dualStack, error) {
	b := &builder{cfg: cfg, deps: deps}
	build, cleansUDP := b.forMode(mode)
	var out dualStack
	for i, fam := range fams {
		rc, err := cfg.RulesConfig(fam)
		if err != nil {
			return nil, err
		}
		f, err := newFamily(fam, nodeName, obs.health, func(state func() *proxy.Snapshot) (proxy.Backend, error) {
			return build(fam, rc, state, obs.synced(fam, cleansUDP))
		})
		if err != nil && i > 0 {
			klog.ErrorS(err, "Running single-stack", "family", fams[0], "mode", mode)
			break
		} else if err != nil {
			return nil, err
		}
		f.runner = runner.New(f.backend.SyncProxyRules, cfg.MinSyncPeriod, cfg.SyncPeriod, cfg.MinSyncPeriod, deps.Clock)
		out = append(out, f)
	}
	return out, nil
}

// newFamily makes the family's tracker (which wakes the runner, once it
// is set, on every change) and its backend reading the tracker's
// snapshots.
func newFamily(fam proxy.IPFamily, nodeName string, health *healthcheck.ProxyHealth,
	build func(state func() *proxy.Snapshot) (proxy.Backend, error)) (*family, error) {
	f := &family{fam: fam}
	f.tracker = tracker.New(fam, nodeName, func() {
		health.QueuedUpdate(fam)
		if f.runner != nil {
			f.runner.Run()
		}
	})
	var err error
	f.backend, err = build(f.tracker.NextSnapshot)
	return f, err
}

func (s dualStack) trackers() []*tracker.Tracker {
	out := make([]*tracker.Tracker, len(s))
	for i, f := range s {
		out[i] = f.tracker
	}
	return out
}

func (s dualStack) families() []proxy.IPFamily {
	out := make([]proxy.IPFamily, len(s))
	for i, f := range s {
		out[i] = f.fam
	}
	return out
}

// run runs every family's sync loop and backend work until ctx ends.
func (s dualStack) run(ctx context.Context) {
	var wg sync.WaitGroup
	for _, f := range s {
		wg.Add(2)
		go func() { defer wg.Done(); f.backend.Run(ctx, f.runner.Run) }()
		go func() { defer wg.Done(); f.runner.Loop(ctx) }()
	}
	wg.Wait()
}
