package ipvs

import (
	"testing"

	"github.com/svcplane/svcplane/internal/proxy"
	"github.com/svcplane/svcplane/internal/proxy/iptables"
	"github.com/svcplane/svcplane/internal/proxy/proxytest"
)

// fakes is one fake kernel.
type fakes struct {
	handle *FakeHandle
	sets   *FakeIPSet
	links  *FakeLinks
	ipt    *iptables.Fake
}

func newFakes() *fakes {
	return &fakes{handle: NewFakeHandle(), sets: NewFakeIPSet(), links: NewFakeLinks(), ipt: iptables.NewFake()}
}

func (f *fakes) proxier(t *testing.T, cfg Config, snap **proxy.Snapshot) *Proxier {
	t.Helper()
	p, err := NewProxier(cfg, f.handle, f.sets, f.links, f.ipt, func() *proxy.Snapshot { return *snap }, nil)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// tracer reads the fakes' state into an IPVS tracer.
func (f *fakes) tracer(t *testing.T) *proxytest.IPVSTracer {
	t.Helper()
	var svcs []proxytest.IPVSService
	vss, _ := f.handle.GetVirtualServers()
	for _, vs := range vss {
		s := proxytest.IPVSService{Key: vs.Key(), Persistent: vs.Flags&FlagPersistent != 0}
		reals, _ := f.handle.GetRealServers(vs)
		for _, r := range reals {
			if r.Weight > 0 { // IPVS never picks a weight-0 (draining) real server
				s.Dests = append(s.Dests, r.Key())
			}
		}
		svcs = append(svcs, s)
	}
	var bound []string
	for _, a := range f.links.Links[DummyInterface] {
		bound = append(bound, a.String())
	}
	tr, err := proxytest.NewIPVSTracer(f.ipt.Dump(), f.sets.Entries(), svcs, bound, proxytest.NodeIP)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

func configFor(pc proxytest.ProxyConfig) Config {
	cfg := Config{Family: proxy.IPv4, Scheduler: "rr", MasqueradeAll: pc.MasqueradeAll, ClusterCIDRs: pc.ClusterCIDRs()}
	return cfg
}

func runChecks(t *testing.T, f *fakes, checks []proxytest.Check) {
	t.Helper()
	tr := f.tracer(t)
	if !proxytest.RunChecks(t, tr, checks) {
		vss, _ := f.handle.GetVirtualServers()
		for _, vs := range vss {
			reals, _ := f.handle.GetRealServers(vs)
			t.Logf("vs %s %+v reals %d", vs.Key(), *vs, len(reals))
		}
		t.Logf("sets %v\n%s", f.sets.Entries(), f.ipt.Dump())
	}
}

func TestScenariosFullSync(t *testing.T) {
	for _, sc := range proxytest.Scenarios() {
		t.Run(sc.Name, func(t *testing.T) {
			f := newFakes()
			snap := proxytest.Snapshot(proxy.IPv4, sc.Objects...)
			if err := f.proxier(t, configFor(sc.Config), &snap).SyncProxyRules(true); err != nil {
				t.Fatal(err)
			}
			runChecks(t, f, sc.Checks)
		})
	}
}

// TestScenariosPartial reaches each scenario from nothing through a
// partial sync and goes back: the fakes must end as they started.
func TestScenariosPartial(t *testing.T) {
	for _, sc := range proxytest.Scenarios() {
		t.Run(sc.Name, func(t *testing.T) {
			f := newFakes()
			empty := proxytest.Snapshot(proxy.IPv4)
			cur := empty
			p := f.proxier(t, configFor(sc.Config), &cur)
			if err := p.SyncProxyRules(true); err != nil {
				t.Fatal(err)
			}
			cur = proxytest.Snapshot(proxy.IPv4, sc.Objects...)
			if err := p.SyncProxyRules(false); err != nil {
				t.Fatal(err)
			}
			runChecks(t, f, sc.Checks)
			cur = empty
			if err := p.SyncProxyRules(false); err != nil {
				t.Fatal(err)
			}
			if vss, _ := f.handle.GetVirtualServers(); len(vss) != 0 || len(f.links.Links[DummyInterface]) != 0 {
				t.Errorf("left: %d virtual servers, addresses %v", len(vss), f.links.Links[DummyInterface])
			}
			for name, entries := range f.sets.Entries() {
				if len(entries) != 0 {
					t.Errorf("set %s left with %v", name, entries)
				}
			}
		})
	}
}
