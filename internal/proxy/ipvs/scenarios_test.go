package ipvs

import (
	"fmt"
	"maps"
	"slices"
	"strings"
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

// dump is the fakes' state as text: virtual servers with their real
// servers, ipset entries, the addresses bound to the dummy interface, and
// the iptables rules.
func (f *fakes) dump() string {
	var b strings.Builder
	b.WriteString("# virtual servers\n")
	vss, _ := f.handle.GetVirtualServers()
	slices.SortFunc(vss, func(x, y *VirtualServer) int { return strings.Compare(x.Key(), y.Key()) })
	for _, vs := range vss {
		fmt.Fprintf(&b, "%s %s", vs.Key(), vs.Scheduler)
		if vs.Flags&FlagPersistent != 0 {
			fmt.Fprintf(&b, " persistent %ds", vs.Timeout)
		}
		b.WriteString("\n")
		reals, _ := f.handle.GetRealServers(vs)
		slices.SortFunc(reals, func(x, y *RealServer) int { return strings.Compare(x.Key(), y.Key()) })
		for _, r := range reals {
			fmt.Fprintf(&b, "  -> %s weight %d\n", r.Key(), r.Weight)
		}
	}
	b.WriteString("# ipsets\n")
	sets := f.sets.Entries()
	for _, name := range slices.Sorted(maps.Keys(sets)) {
		fmt.Fprintf(&b, "%s: %s\n", name, strings.Join(sets[name], " "))
	}
	var bound []string
	for _, a := range f.links.Links[DummyInterface] {
		bound = append(bound, a.String())
	}
	slices.Sort(bound)
	fmt.Fprintf(&b, "# %s\n%s\n# iptables\n%s", DummyInterface, strings.Join(bound, " "), f.ipt.Dump())
	return b.String()
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

// TestScenariosFullSync installs each scenario with one full sync, checks
// its packet fates and compares the kernel state (virtual servers, ipsets,
// addresses, iptables) with testdata/scenarios/<scenario>.ipvs (go test
// -update rewrites them).
func TestScenariosFullSync(t *testing.T) {
	for _, sc := range proxytest.Scenarios(t) {
		t.Run(sc.Name, func(t *testing.T) {
			f := newFakes()
			snap := proxytest.Snapshot(proxy.IPv4, sc.Objects...)
			if err := f.proxier(t, configFor(sc.Config), &snap).SyncProxyRules(true); err != nil {
				t.Fatal(err)
			}
			runChecks(t, f, sc.Checks)
			proxytest.Golden(t, "scenarios/"+sc.File+".ipvs", f.dump())
		})
	}
}

// TestScenariosPartial reaches each scenario from nothing through a
// partial sync (the same fates, the same state as the full sync's golden
// file) and goes back: the fakes must end as they started.
func TestScenariosPartial(t *testing.T) {
	for _, sc := range proxytest.Scenarios(t) {
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
			proxytest.Golden(t, "scenarios/"+sc.File+".ipvs", f.dump())
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
