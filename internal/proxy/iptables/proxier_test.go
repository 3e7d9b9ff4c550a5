package iptables

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"

	"github.com/svcplane/svcplane/internal/proxy"
	"github.com/svcplane/svcplane/internal/proxy/proxytest"
	"github.com/svcplane/svcplane/internal/testutil"
)

func webSnap(endpoints ...string) *proxy.Snapshot {
	eps := make([]string, len(endpoints))
	for i, e := range endpoints {
		eps[i] = e + "@" + proxytest.OtherNode
	}
	return proxytest.Snapshot(proxy.IPv4,
		proxytest.Svc("web", "10.96.0.10", 80), proxytest.Slice("web", 8080, eps...),
		proxytest.Svc("other", "10.96.0.11", 80), proxytest.Slice("other", 8080, "10.244.3.3@"+proxytest.OtherNode))
}

func TestPartialRestoreWritesOnlyChangedChains(t *testing.T) {
	fake := NewFake()
	snap := webSnap("10.244.1.2", "10.244.2.3")
	p := newTestProxier(Config{Family: proxy.IPv4}, fake, &snap)
	if err := p.SyncProxyRules(true); err != nil {
		t.Fatal(err)
	}
	snap = webSnap("10.244.1.2")
	if err := p.SyncProxyRules(false); err != nil {
		t.Fatal(err)
	}
	last := string(fake.Restores[len(fake.Restores)-1])
	web := chainsFor(proxy.ServicePortName{Namespace: "ns", Name: "web", Port: "p", Protocol: proxy.TCP})
	gone := endpointChain(proxy.ServicePortName{Namespace: "ns", Name: "web", Port: "p", Protocol: proxy.TCP},
		proxy.Endpoint{IP: mustAddr("10.244.2.3"), Port: 8080})
	for _, want := range []string{":" + web.svc, "-X " + gone} {
		if !strings.Contains(last, want) {
			t.Errorf("partial restore lacks %q:\n%s", want, last)
		}
	}
	for _, not := range []string{"KUBE-SERVICES", "*filter", "10.96.0.11"} {
		if strings.Contains(last, not) {
			t.Errorf("partial restore rewrote %q:\n%s", not, last)
		}
	}
	if ok, _ := fake.ChainExists(context.Background(), TableNAT, gone); ok {
		t.Errorf("%s not deleted", gone)
	}
}

// fullySynced returns a proxier over fake that recorded its syncs and has
// done a first full one.
func fullySynced(t *testing.T, fake *Fake, snap **proxy.Snapshot) (*Proxier, *[]proxy.SyncResult) {
	t.Helper()
	results := &[]proxy.SyncResult{}
	p := newTestProxier(Config{Family: proxy.IPv4}, fake, snap)
	p.OnSynced = func(res proxy.SyncResult, _, _ *proxy.Snapshot, err error) { *results = append(*results, res) }
	if err := p.SyncProxyRules(true); err != nil {
		t.Fatal(err)
	}
	return p, results
}

func TestFailedRestoreMakesNextSyncFull(t *testing.T) {
	fake := NewFake()
	snap := webSnap("10.244.1.2")
	p, results := fullySynced(t, fake, &snap)
	snap = webSnap("10.244.2.3")
	fake.FailRestore = errors.New("boom")
	if err := p.SyncProxyRules(false); err == nil {
		t.Fatal("want the injected error")
	}
	if err := p.SyncProxyRules(false); err != nil {
		t.Fatal(err)
	}
	if !(*results)[2].Full {
		t.Errorf("sync after a failure should be full: %+v", *results)
	}
	tr, _ := proxytest.NewIPTTracer(fake.Dump(), proxytest.NodeIP)
	if got, _ := tr.Trace(proxytest.Packet{Src: proxytest.LocalPodIP, Dst: "10.96.0.10", Proto: "tcp", Port: 80}); !proxytest.To("10.244.2.3:8080").Matches(got) {
		t.Errorf("after recovery: %s", got)
	}
}

// A new process finds chains of an older one: the full sync deletes the
// stale per-Service chains and keeps everything else.
func TestFullSyncDeletesStaleChainsFromTables(t *testing.T) {
	fake := NewFake()
	snap := webSnap("10.244.1.2", "10.244.2.3")
	if err := newTestProxier(Config{Family: proxy.IPv4}, fake, &snap).SyncProxyRules(true); err != nil {
		t.Fatal(err)
	}
	foreign := "*nat\n:OTHER-CHAIN - [0:0]\n-A OTHER-CHAIN -j RETURN\nCOMMIT\n"
	if err := fake.Restore(context.Background(), []byte(foreign)); err != nil {
		t.Fatal(err)
	}
	snap = proxytest.Snapshot(proxy.IPv4)
	if err := newTestProxier(Config{Family: proxy.IPv4}, fake, &snap).SyncProxyRules(true); err != nil {
		t.Fatal(err)
	}
	dump := fake.Dump()
	if strings.Contains(dump, prefixSEP) || strings.Contains(dump, prefixSVC) {
		t.Errorf("stale chains survived:\n%s", dump)
	}
	if !strings.Contains(dump, "OTHER-CHAIN") {
		t.Errorf("foreign chain deleted:\n%s", dump)
	}
}

func TestCanaryForcesFullResync(t *testing.T) {
	fake := NewFake()
	snap := webSnap("10.244.1.2")
	p, results := fullySynced(t, fake, &snap)
	resyncs := 0
	if p.CheckCanary(context.Background(), func() { resyncs++ }) {
		t.Fatal("canary present, no resync wanted")
	}
	fake.FlushAll()
	if !p.CheckCanary(context.Background(), func() { resyncs++ }) || resyncs != 1 {
		t.Fatal("flush not detected")
	}
	if err := p.SyncProxyRules(false); err != nil {
		t.Fatal(err)
	}
	if last := *results; !last[len(last)-1].Full {
		t.Error("resync after a flush should be full")
	}
	if ok, _ := p.CanaryPresent(context.Background()); !ok {
		t.Error("canary not recreated")
	}
	tr, _ := proxytest.NewIPTTracer(fake.Dump(), proxytest.NodeIP)
	if got, _ := tr.Trace(proxytest.Packet{Src: proxytest.LocalPodIP, Dst: "10.96.0.10", Proto: "tcp", Port: 80}); !proxytest.To("10.244.1.2:8080").Matches(got) {
		t.Errorf("after resync: %s", got)
	}
}

func TestCleanupRemovesProxyChainsOnly(t *testing.T) {
	fake := NewFake()
	snap := webSnap("10.244.1.2")
	if err := newTestProxier(Config{Family: proxy.IPv4}, fake, &snap).SyncProxyRules(true); err != nil {
		t.Fatal(err)
	}
	kubelet := "*filter\n:KUBE-FIREWALL - [0:0]\n-A INPUT -j KUBE-FIREWALL\nCOMMIT\n"
	if err := fake.Restore(context.Background(), []byte(kubelet)); err != nil {
		t.Fatal(err)
	}
	if err := Cleanup(context.Background(), fake); err != nil {
		t.Fatal(err)
	}
	dump := fake.Dump()
	for _, l := range strings.Split(dump, "\n") {
		if strings.Contains(l, "KUBE-") && !strings.Contains(l, "KUBE-FIREWALL") {
			t.Errorf("left after cleanup: %s", l)
		}
	}
	if !strings.Contains(dump, "-A INPUT -j KUBE-FIREWALL") {
		t.Errorf("kubelet's chain removed:\n%s", dump)
	}
	if err := Cleanup(context.Background(), fake); err != nil {
		t.Fatalf("second cleanup: %v", err)
	}
}

// Chunked restores (the nft variant's) and plans reusing the previous one
// leave exactly the tables a single restore of a fresh plan does.
func TestChunkedAndReusedPlansMatch(t *testing.T) {
	states := []*proxy.Snapshot{webSnap("10.244.1.2", "10.244.2.3"), webSnap("10.244.1.2"), webSnap(), webSnap("10.244.2.3")}
	run := func(chunk int) []string {
		fake := NewFake()
		var snap *proxy.Snapshot
		p := newTestProxier(Config{Family: proxy.IPv4}, fake, &snap)
		p.ChunkChains = chunk
		var dumps []string
		for i, s := range states {
			snap = s
			if err := p.SyncProxyRules(i == 0); err != nil {
				t.Fatal(err)
			}
			dumps = append(dumps, fake.Dump())
		}
		commits := 0
		for _, r := range fake.Restores {
			commits += strings.Count(string(r), "*nat\n")
		}
		if chunk > 0 && commits <= len(states) {
			t.Errorf("chunk %d: want more nat transactions than syncs, got %d", chunk, commits)
		}
		if len(fake.Restores) != len(states) {
			t.Errorf("chunk %d: %d restores for %d syncs, want one each", chunk, len(fake.Restores), len(states))
		}
		return dumps
	}
	one, chunked := run(0), run(1)
	for i := range one {
		if one[i] != chunked[i] {
			t.Errorf("state %d differs:\n%s\nvs chunked:\n%s", i, one[i], chunked[i])
		}
	}
	for _, s := range states {
		fresh := Plan(&Config{Family: proxy.IPv4}, s)
		reused := PlanFrom(&Config{Family: proxy.IPv4}, s, Plan(&Config{Family: proxy.IPv4}, states[0]))
		for _, tb := range writtenTables {
			for _, c := range fresh.Chains(tb) {
				if strings.Join(fresh.Rules(tb, c), "\n") != strings.Join(reused.Rules(tb, c), "\n") {
					t.Errorf("chain %s differs when reusing a plan", c)
				}
			}
		}
	}
}

// A partial sync whose service chains fit in one chunk is one nat
// transaction (one kernel commit), chunked or not.
func TestSmallPartialSyncIsOneTransaction(t *testing.T) {
	fake := NewFake()
	snap := webSnap("10.244.1.2", "10.244.2.3")
	p := newTestProxier(Config{Family: proxy.IPv4}, fake, &snap)
	p.ChunkChains = nftChunkChains
	if err := p.SyncProxyRules(true); err != nil {
		t.Fatal(err)
	}
	for i, s := range []*proxy.Snapshot{webSnap("10.244.1.2"), webSnap(), webSnap("10.244.2.3")} {
		before := len(fake.Restores)
		snap = s
		if err := p.SyncProxyRules(false); err != nil {
			t.Fatal(err)
		}
		if n := len(fake.Restores) - before; n != 1 {
			t.Fatalf("partial sync %d: %d restores, want 1", i, n)
		}
		if in := string(fake.Restores[before]); strings.Count(in, "*nat\n") != 1 {
			t.Errorf("partial sync %d: want one nat transaction:\n%s", i, in)
		}
	}
}

// Partial syncs of snapshots carrying a ChangeSet (the tracker's) leave
// the tables a full sync of the same state leaves; the ports the set does
// not name are reused, not re-planned.
func TestChangeSetPartialSyncsMatchFullSyncs(t *testing.T) {
	web := proxy.ServicePortName{Namespace: "ns", Name: "web", Port: "p", Protocol: proxy.TCP}
	withChanges := func(s *proxy.Snapshot, names ...proxy.ServicePortName) *proxy.Snapshot {
		s.Changes = &proxy.ChangeSet{Ports: map[proxy.ServicePortName]struct{}{}}
		for _, n := range names {
			s.Changes.Ports[n] = struct{}{}
		}
		return s
	}
	if _, ok := webSnap().Services[web]; !ok {
		t.Fatalf("the web port is not named %v: %v", web, webSnap().Services)
	}
	fake := NewFake()
	snap := webSnap("10.244.1.2", "10.244.2.3")
	p := newTestProxier(Config{Family: proxy.IPv4}, fake, &snap)
	if err := p.SyncProxyRules(true); err != nil {
		t.Fatal(err)
	}
	other := p.installed.services[proxy.ServicePortName{Namespace: "ns", Name: "other", Port: "p", Protocol: proxy.TCP}]
	for i, next := range []*proxy.Snapshot{
		withChanges(webSnap("10.244.1.2"), web), withChanges(webSnap(), web),
		withChanges(webSnap("10.244.2.3", "10.244.1.2"), web), withChanges(webSnap("10.244.2.3", "10.244.1.2")),
	} {
		snap = next
		if err := p.SyncProxyRules(false); err != nil {
			t.Fatal(err)
		}
		want := NewFake()
		wantSnap := next
		if err := newTestProxier(Config{Family: proxy.IPv4}, want, &wantSnap).SyncProxyRules(true); err != nil {
			t.Fatal(err)
		}
		if got, w := serviceRulesSorted(fake.Dump()), serviceRulesSorted(want.Dump()); got != w {
			t.Errorf("step %d: partial syncs left\n%s\nwant\n%s", i, got, w)
		}
		if p.installed.services[proxy.ServicePortName{Namespace: "ns", Name: "other", Port: "p", Protocol: proxy.TCP}] != other {
			t.Errorf("step %d: the unchanged port was planned again", i)
		}
	}
}

// serviceRulesSorted moves the Services' rules of the shared chains, whose
// order among themselves does not matter (partial syncs insert them at the
// top), to the end of the dump in sorted order.
func serviceRulesSorted(dump string) string {
	var kept, moved []string
	for _, l := range strings.Split(dump, "\n") {
		if strings.HasPrefix(l, "-A KUBE-SERVICES ") && strings.Contains(l, `--comment "ns/`) {
			moved = append(moved, l)
			continue
		}
		kept = append(kept, l)
	}
	slices.Sort(moved)
	return strings.Join(append(kept, moved...), "\n")
}

// A restore failing after some of its COMMITs leaves those applied; the
// next sync is full, reads the tables and converges to what a clean full
// sync leaves.
func TestRestoreFailingPartwayConverges(t *testing.T) {
	fake := NewFake()
	snap := webSnap("10.244.1.2", "10.244.2.3", "10.244.4.4")
	p := newTestProxier(Config{Family: proxy.IPv4}, fake, &snap)
	p.ChunkChains = 1 // 4 when rewriting existing chains
	if err := p.SyncProxyRules(true); err != nil {
		t.Fatal(err)
	}
	next := func() *proxy.Snapshot { return webSnap("10.244.2.3", "10.244.4.4") }
	snap = next()
	// Sections: KUBE-MARK-MASQ, the service chains, then filter, then the
	// nat shared chains and deletions, which fail: the old endpoint's
	// chain stays behind.
	fake.FailCommit = 4
	chains := strings.Count(fake.Dump(), ":KUBE-SEP-")
	if err := p.SyncProxyRules(true); err == nil {
		t.Fatal("the injected failure should fail the sync")
	}
	if got := strings.Count(fake.Dump(), ":KUBE-SEP-"); got != chains {
		t.Fatalf("the failed sync should leave the old endpoint chain: %d KUBE-SEP chains, had %d", got, chains)
	}
	if p.installed != nil {
		t.Fatal("after a failure the installed state must be unknown")
	}
	if err := p.SyncProxyRules(false); err != nil {
		t.Fatal(err)
	}
	want := NewFake()
	wantSnap := next()
	if err := newTestProxier(Config{Family: proxy.IPv4}, want, &wantSnap).SyncProxyRules(true); err != nil {
		t.Fatal(err)
	}
	if got, w := serviceRulesSorted(fake.Dump()), serviceRulesSorted(want.Dump()); got != w {
		t.Errorf("after the failed sync and a full one:\n%s\nwant\n%s", got, w)
	}
}

// Monitor checks the canary on every tick of the (fake) clock.
func TestMonitorResyncsAfterAFlush(t *testing.T) {
	fake := NewFake()
	snap := webSnap("10.244.1.2")
	p := newTestProxier(Config{Family: proxy.IPv4}, fake, &snap)
	if err := p.SyncProxyRules(true); err != nil {
		t.Fatal(err)
	}
	clk := clocktesting.NewFakeClock(time.Unix(0, 0))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	resynced := make(chan struct{}, 1)
	done := make(chan struct{})
	go func() {
		Monitor(ctx, clk, time.Minute, p, func() { resynced <- struct{}{} })
		close(done)
	}()
	testutil.Eventually(t, 10*time.Second, "the monitor to wait on its interval", clk.HasWaiters)
	fake.FlushAll()
	clk.Step(time.Minute)
	<-resynced
	cancel()
	<-done
}

// The installed plan keeps no port chain text (compact); partial syncs
// and a full sync over it render what they compare and write again, and
// leave the tables a fresh full sync of the same state leaves.
func TestInstalledPlanKeepsNoRuleText(t *testing.T) {
	fake := NewFake()
	var snap *proxy.Snapshot
	p := newTestProxier(Config{Family: proxy.IPv4}, fake, &snap)
	for i, step := range []struct {
		snap *proxy.Snapshot
		full bool
	}{
		{webSnap("10.244.1.2", "10.244.2.3"), true},
		{webSnap("10.244.1.2"), false},
		{webSnap("10.244.1.2", "10.244.3.4"), false},
		{webSnap("10.244.3.4"), true}, // full over an installed (compacted) plan
		{webSnap(), false},
		{webSnap("10.244.1.2"), false},
		// "other" deleted: its chains go by the names compact kept.
		{proxytest.Snapshot(proxy.IPv4, proxytest.Svc("web", "10.96.0.10", 80),
			proxytest.Slice("web", 8080, "10.244.1.2@"+proxytest.OtherNode)), false},
	} {
		snap = step.snap
		if err := p.SyncProxyRules(step.full); err != nil {
			t.Fatal(err)
		}
		if len(p.installed.services) == 0 {
			t.Fatalf("step %d: nothing installed", i)
		}
		for name, s := range p.installed.services {
			if s.own != nil {
				t.Errorf("step %d: the installed plan keeps %v's chain text", i, name)
			}
		}
		want := NewFake()
		wantSnap := step.snap
		if err := newTestProxier(Config{Family: proxy.IPv4}, want, &wantSnap).SyncProxyRules(true); err != nil {
			t.Fatal(err)
		}
		if got, w := serviceRulesSorted(fake.Dump()), serviceRulesSorted(want.Dump()); got != w {
			t.Errorf("step %d: syncs left\n%s\nwant\n%s", i, got, w)
		}
	}
}
