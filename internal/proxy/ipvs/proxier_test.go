package ipvs

import (
	"errors"
	"net/netip"
	"strings"
	"syscall"
	"testing"

	"github.com/svcplane/svcplane/internal/proxy"
	"github.com/svcplane/svcplane/internal/proxy/proxytest"
)

func TestFakeHandleEnforcesKernelRules(t *testing.T) {
	h := NewFakeHandle()
	vs := &VirtualServer{Address: mustAddr("10.96.0.10"), Protocol: proxy.TCP, Port: 80, Scheduler: "rr"}
	if err := h.AddVirtualServer(vs); err != nil {
		t.Fatal(err)
	}
	if err := h.AddVirtualServer(vs); !errors.Is(err, syscall.EEXIST) {
		t.Errorf("duplicate virtual server: %v", err)
	}
	bad := *vs
	bad.Scheduler = "fastest"
	if err := h.UpdateVirtualServer(&bad); !errors.Is(err, syscall.ENOENT) {
		t.Errorf("unknown scheduler: %v", err)
	}
	rs := &RealServer{Address: mustAddr("10.244.1.2"), Port: 8080, Weight: 1}
	if err := h.AddRealServer(vs, rs); err != nil {
		t.Fatal(err)
	}
	if err := h.AddRealServer(vs, rs); !errors.Is(err, syscall.EEXIST) {
		t.Errorf("duplicate real server: %v", err)
	}
	other := &VirtualServer{Address: mustAddr("10.96.0.11"), Protocol: proxy.TCP, Port: 80, Scheduler: "rr"}
	if err := h.AddRealServer(other, rs); !errors.Is(err, syscall.ENOENT) {
		t.Errorf("real server of a missing service: %v", err)
	}
	if err := h.DeleteVirtualServer(other); !errors.Is(err, syscall.ENOENT) {
		t.Errorf("delete missing: %v", err)
	}
}

func TestPartialSyncSendsOnlyChanges(t *testing.T) {
	f := newFakes()
	snap := proxytest.Snapshot(proxy.IPv4,
		proxytest.Svc("web", "10.96.0.10", 80), proxytest.Slice("web", 8080, "10.244.1.2@"+proxytest.OtherNode, "10.244.2.3@"+proxytest.OtherNode),
		proxytest.Svc("other", "10.96.0.11", 80), proxytest.Slice("other", 8080, "10.244.3.3@"+proxytest.OtherNode))
	p := f.proxier(t, Config{Family: proxy.IPv4, Scheduler: "wlc"}, &snap)
	var results []proxy.SyncResult
	p.OnSynced = func(r proxy.SyncResult, _, _ *proxy.Snapshot, err error) { results = append(results, r) }
	if err := p.SyncProxyRules(true); err != nil {
		t.Fatal(err)
	}
	restores := len(f.ipt.Restores)
	snap = proxytest.Snapshot(proxy.IPv4,
		proxytest.Svc("web", "10.96.0.10", 80), proxytest.Slice("web", 8080, "10.244.1.2@"+proxytest.OtherNode),
		proxytest.Svc("other", "10.96.0.11", 80), proxytest.Slice("other", 8080, "10.244.3.3@"+proxytest.OtherNode))
	calls := f.handle.Calls
	if err := p.SyncProxyRules(false); err != nil {
		t.Fatal(err)
	}
	if got := f.handle.Calls - calls; got != 1 || results[1].Changes != 1 {
		t.Errorf("one endpoint removed: %d IPVS calls, result %+v", got, results[1])
	}
	if len(f.ipt.Restores) != restores {
		t.Error("a partial sync rewrote the iptables rules")
	}
	if e := f.sets.Entries()[setLoopBack]; strings.Contains(strings.Join(e, " "), "10.244.2.3") {
		t.Errorf("loopback set kept the removed endpoint: %v", e)
	}
	vss, _ := f.handle.GetVirtualServers()
	if len(vss) != 2 || vss[0].Scheduler != "wlc" {
		t.Errorf("virtual servers: %+v", vss)
	}
}

// A new process finds virtual servers and addresses of an old one: the
// first (full) sync removes the stale ones without duplicating the rest.
func TestFullSyncAdoptsKernelState(t *testing.T) {
	f := newFakes()
	snap := proxytest.Snapshot(proxy.IPv4, proxytest.Svc("web", "10.96.0.10", 80), proxytest.Slice("web", 8080, "10.244.1.2@"+proxytest.OtherNode),
		proxytest.Svc("gone", "10.96.0.99", 80), proxytest.Slice("gone", 8080, "10.244.9.9@"+proxytest.OtherNode))
	if err := f.proxier(t, Config{Family: proxy.IPv4}, &snap).SyncProxyRules(true); err != nil {
		t.Fatal(err)
	}
	snap = proxytest.Snapshot(proxy.IPv4, proxytest.Svc("web", "10.96.0.10", 80), proxytest.Slice("web", 8080, "10.244.1.2@"+proxytest.OtherNode))
	if err := f.proxier(t, Config{Family: proxy.IPv4}, &snap).SyncProxyRules(true); err != nil {
		t.Fatal(err)
	}
	vss, _ := f.handle.GetVirtualServers()
	if len(vss) != 1 || len(f.links.Links[DummyInterface]) != 1 {
		t.Errorf("stale state survived: %d virtual servers, addresses %v", len(vss), f.links.Links[DummyInterface])
	}
}

func TestCleanup(t *testing.T) {
	f := newFakes()
	snap := proxytest.Snapshot(proxy.IPv4, proxytest.Svc("web", "10.96.0.10", 80), proxytest.Slice("web", 8080, "10.244.1.2@"+proxytest.OtherNode))
	if err := f.proxier(t, Config{Family: proxy.IPv4}, &snap).SyncProxyRules(true); err != nil {
		t.Fatal(err)
	}
	if err := Cleanup(t.Context(), f.handle, f.sets, f.links); err != nil {
		t.Fatal(err)
	}
	vss, _ := f.handle.GetVirtualServers()
	if len(vss) != 0 || len(f.links.Links) != 0 || len(f.sets.Sets) != 0 {
		t.Errorf("left: %v %v %v", vss, f.links.Links, f.sets.Sets)
	}
}

func TestUnknownSchedulerIsRefused(t *testing.T) {
	f := newFakes()
	var snap *proxy.Snapshot
	if _, err := NewProxier(Config{Scheduler: "fastest"}, f.handle, f.sets, f.links, f.ipt, func() *proxy.Snapshot { return snap }, nil); err == nil {
		t.Error("want an error")
	}
}

func mustAddr(s string) netip.Addr { return netip.MustParseAddr(s) }

func TestSetSysctls(t *testing.T) {
	got := map[string]string{}
	if err := SetSysctls(func(p, v string) error { got[p] = v; return nil }); err != nil {
		t.Fatal(err)
	}
	if got["net/ipv4/vs/conntrack"] != "1" || len(got) != len(Sysctls) {
		t.Errorf("sysctls: %v", got)
	}
}
