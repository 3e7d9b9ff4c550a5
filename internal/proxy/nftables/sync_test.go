package nftables

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	discovery "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/knftables"

	"github.com/svcplane/svcplane/internal/proxy"
	"github.com/svcplane/svcplane/internal/proxy/proxytest"
	"github.com/svcplane/svcplane/internal/proxy/tracker"
)

func svcKey(s *v1.Service) types.NamespacedName {
	return types.NamespacedName{Namespace: s.Namespace, Name: s.Name}
}

// TestIncrementalFollowsTrackerChanges drives a Proxier from a tracker's
// NextSnapshot through a series of changes. After each partial sync
// (which re-plans only the ports the tracker names) the table must equal
// what a full sync of the same state writes into an empty table.
func TestIncrementalFollowsTrackerChanges(t *testing.T) {
	cfg := configFor(proxytest.ProxyConfig{ClusterCIDR: proxytest.PodCIDR})
	tr := tracker.New(proxy.IPv4, proxytest.NodeName, nil)
	tr.OnNodeUpdate(proxytest.Node())
	fake := knftables.NewFake(knftables.IPv4Family, TableName)
	var partial []*proxy.Snapshot
	p := NewProxier(cfg, fake, func() *proxy.Snapshot {
		s := tr.NextSnapshot()
		partial = append(partial, s)
		return s
	})
	web := proxytest.Svc("web", "10.96.0.10", 80, proxytest.NodePort(30080))
	sticky := proxytest.Svc("sticky", "10.96.0.11", 80, func(s *v1.Service) {
		s.Spec.SessionAffinity = v1.ServiceAffinityClientIP
	})
	steps := []struct {
		name string
		do   func()
	}{
		{"first", func() {
			tr.OnServiceUpdate(svcKey(web), web)
			tr.OnEndpointSliceUpdate(proxytest.Slice("web", 8080, "10.244.1.2@"+proxytest.NodeName, "10.244.2.3@"+proxytest.OtherNode), false)
		}},
		{"endpoint added", func() {
			tr.OnEndpointSliceUpdate(proxytest.Slice("web", 8080, "10.244.1.2@"+proxytest.NodeName,
				"10.244.2.3@"+proxytest.OtherNode, "10.244.1.4@"+proxytest.NodeName), false)
		}},
		{"sticky service with the same endpoints", func() {
			tr.OnServiceUpdate(svcKey(sticky), sticky)
			tr.OnEndpointSliceUpdate(proxytest.Slice("sticky", 8080, "10.244.1.2@"+proxytest.NodeName, "10.244.2.3@"+proxytest.OtherNode), false)
		}},
		{"sticky endpoint terminating", func() {
			tr.OnEndpointSliceUpdate(proxytest.Slice("sticky", 8080, "10.244.1.2@"+proxytest.NodeName+",t", "10.244.2.3@"+proxytest.OtherNode), false)
		}},
		{"web becomes UDP", func() {
			w := web.DeepCopy()
			w.Spec.Ports[0].Protocol = v1.ProtocolUDP
			tr.OnServiceUpdate(svcKey(w), w)
		}},
		{"web endpoints gone", func() {
			tr.OnEndpointSliceUpdate(proxytest.Slice("web", 8080), true)
		}},
		{"nothing changed", func() {}},
		{"node relabelled (full re-plan)", func() {
			n := proxytest.Node()
			n.Labels["x"] = "y"
			tr.OnNodeUpdate(n)
		}},
		{"everything deleted", func() {
			tr.OnServiceUpdate(svcKey(web), nil)
			tr.OnServiceUpdate(svcKey(sticky), nil)
			tr.OnEndpointSliceUpdate(&discovery.EndpointSlice{ObjectMeta: proxytest.Slice("sticky", 8080).ObjectMeta,
				AddressType: discovery.AddressTypeIPv4}, true)
		}},
	}
	for i, st := range steps {
		st.do()
		if err := p.SyncProxyRules(i == 0); err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		if i > 0 && i != 7 && partial[i].Changes == nil {
			t.Fatalf("%s: tracker gave no change set", st.name)
		}
		want := knftables.NewFake(knftables.IPv4Family, TableName)
		snap := tr.Snapshot()
		if err := NewProxier(cfg, want, func() *proxy.Snapshot { return snap }).SyncProxyRules(true); err != nil {
			t.Fatal(err)
		}
		if got, exp := fake.Dump(), want.Dump(); got != exp {
			t.Fatalf("%s: partial sync differs from a full one:\n%s\nwant:\n%s", st.name, got, exp)
		}
	}
	if n := len(partial[6].Changes.Ports); n != 0 {
		t.Errorf("no-op step reported %d changed ports", n)
	}
}

// teeWriter sends every call to two writers.
type teeWriter struct{ a, b writer }

func (t teeWriter) add(o knftables.Object)   { t.a.add(o); t.b.add(o) }
func (t teeWriter) flush(o knftables.Object) { t.a.flush(o); t.b.flush(o) }
func (t teeWriter) del(o knftables.Object)   { t.a.del(o); t.b.del(o) }
func (t teeWriter) ops() int                 { return t.a.ops() }
func (t teeWriter) allElements(s *setState) {
	es := setElements(s) // both writers get the same order
	t.a.elements(addOp, s, es)
	t.b.elements(addOp, s, es)
}
func (t teeWriter) elements(op elemOp, s *setState, es []elemDef) {
	t.a.elements(op, s, es)
	t.b.elements(op, s, es)
}

// expandElements splits "add element T S { a : x, b : y }" into one line
// per element, as knftables writes them.
func expandElements(line string) []string {
	head, body, ok := strings.Cut(line, " { ")
	if !ok || !strings.Contains(head, " element ") {
		return []string{line}
	}
	var out []string
	for _, e := range strings.Split(strings.TrimSuffix(body, " }"), ", ") {
		out = append(out, head+" { "+e+" }")
	}
	return out
}

// sortElementRuns sorts each run of consecutive element statements (their
// order within one set does not matter).
func sortElementRuns(lines []string) []string {
	for i := 0; i < len(lines); {
		j := i
		for j < len(lines) && strings.Contains(lines[j], " element ") {
			j++
		}
		slices.Sort(lines[i:j])
		i = max(j, i+1)
	}
	return lines
}

// TestCompactScripts writes every scenario (full, then incremental from
// empty) through the script writer and knftables side by side: expanded
// to one element per statement, the script must be knftables' own text,
// and it must batch elements.
func TestCompactScripts(t *testing.T) {
	fake := knftables.NewFake(knftables.IPv4Family, TableName)
	batched := 0
	for _, sc := range proxytest.Scenarios(t) {
		cfg := configFor(sc.Config)
		snap := proxytest.Snapshot(proxy.IPv4, sc.Objects...)
		empty := Plan(&cfg, proxytest.Snapshot(proxy.IPv4))
		empty.delta = newDelta()
		for _, port := range snap.Services {
			empty.add(planServicePort(&cfg, port, snap.Endpoints[port.Name], &snap.Node))
		}
		for what, write := range map[string]func(w writer){
			"full":  func(w writer) { writeFull(w, Plan(&cfg, snap), existing{chains: []string{"old"}}, "c") },
			"delta": func(w writer) { writeDelta(w, empty, empty.delta) },
		} {
			tx, sw := &txWriter{tx: fake.NewTransaction()}, newScriptWriter(fake, knftables.IPv4Family)
			write(teeWriter{tx, sw})
			script, err := sw.script()
			if err != nil {
				t.Fatal(err)
			}
			var expanded []string
			for _, l := range strings.Split(strings.TrimSpace(string(script)), "\n") {
				expanded = append(expanded, expandElements(l)...)
			}
			got := strings.Join(sortElementRuns(expanded), "\n")
			want := strings.Join(sortElementRuns(strings.Split(strings.TrimSpace(tx.tx.String()), "\n")), "\n")
			if got != want {
				t.Errorf("%s %s: expanded script\n%s\nwant\n%s", sc.Name, what, got, want)
			}
			if strings.Contains(string(script), ", ") {
				batched++
			}
		}
	}
	if batched == 0 {
		t.Error("no script had a multi-element statement")
	}
}

func TestExpandElements(t *testing.T) {
	got := expandElements("add element ip t m { 1 . 2 : a, 3 . 4 : b }")
	want := []string{"add element ip t m { 1 . 2 : a }", "add element ip t m { 3 . 4 : b }"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q", got)
	}
}

// failingNFT fails the next Run when failNext is set.
type failingNFT struct {
	*knftables.Fake
	failNext bool
}

func (f *failingNFT) Run(ctx context.Context, tx *knftables.Transaction) error {
	if f.failNext {
		f.failNext = false
		return errors.New("injected failure")
	}
	return f.Fake.Run(ctx, tx)
}

// TestFailedSyncIsFollowedByFullSync: after a failed partial sync the
// installed state is unknown, so the next sync is full, even when asked
// for a partial one, and leaves the table as a fresh full sync would.
func TestFailedSyncIsFollowedByFullSync(t *testing.T) {
	cfg := configFor(proxytest.ProxyConfig{ClusterCIDR: proxytest.PodCIDR})
	nft := &failingNFT{Fake: knftables.NewFake(knftables.IPv4Family, TableName)}
	web := proxytest.Svc("web", "10.96.0.10", 80)
	snap := proxytest.Snapshot(proxy.IPv4, web, proxytest.Slice("web", 8080, "10.244.1.2@"+proxytest.NodeName))
	p := NewProxier(cfg, nft, func() *proxy.Snapshot { return snap })
	var results []proxy.SyncResult
	p.OnSynced = func(res proxy.SyncResult, _, _ *proxy.Snapshot, err error) {
		if err == nil {
			results = append(results, res)
		}
	}
	if err := p.SyncProxyRules(true); err != nil {
		t.Fatal(err)
	}
	snap = proxytest.Snapshot(proxy.IPv4, web, proxytest.Slice("web", 8080, "10.244.2.3@"+proxytest.OtherNode))
	nft.failNext = true
	if err := p.SyncProxyRules(false); err == nil {
		t.Fatal("the injected failure was not reported")
	}
	if err := p.SyncProxyRules(false); err != nil {
		t.Fatal(err)
	}
	if len(results) != 2 || !results[1].Full {
		t.Fatalf("the sync after a failure should be full: %+v", results)
	}
	want := knftables.NewFake(knftables.IPv4Family, TableName)
	if err := NewProxier(cfg, want, func() *proxy.Snapshot { return snap }).SyncProxyRules(true); err != nil {
		t.Fatal(err)
	}
	if nft.Dump() != want.Dump() {
		t.Errorf("after recovery:\n%s\nwant:\n%s", nft.Dump(), want.Dump())
	}
}

// TestScriptAllElements: streaming a set's elements straight from the
// table gives the same statements as the batched path, split every
// elementsPerStatement elements.
func TestScriptAllElements(t *testing.T) {
	fake := knftables.NewFake(knftables.IPv4Family, TableName)
	set := &setState{obj: &knftables.Map{Name: "m"}, isMap: true, elems: map[string]elemState{}}
	for i := 0; i < 2*elementsPerStatement+5; i++ {
		set.elems[fmt.Sprintf("10.0.%d.%d . tcp . 80", i/256, i%256)] = elemState{value: "goto c", refs: 1}
	}
	expanded := func(write func(w *scriptWriter)) ([]string, int) {
		w := newScriptWriter(fake, knftables.IPv4Family)
		write(w)
		script, err := w.script()
		if err != nil {
			t.Fatal(err)
		}
		statements := strings.Split(strings.TrimSpace(string(script)), "\n")
		var out []string
		for _, l := range statements {
			out = append(out, expandElements(l)...)
		}
		slices.Sort(out)
		return out, len(statements)
	}
	streamed, n := expanded(func(w *scriptWriter) { w.allElements(set) })
	batched, _ := expanded(func(w *scriptWriter) { w.elements(addOp, set, setElements(set)) })
	if n != 3 || len(streamed) != len(set.elems) || !slices.Equal(streamed, batched) {
		t.Errorf("streamed %d elements in %d statements; equal to batched: %v", len(streamed), n, slices.Equal(streamed, batched))
	}
}

// TestExternalIPMovesBetweenServices: a per-port element (here an
// external IP:port) leaves one Service and joins another in one partial
// sync, whichever port is re-planned first.
func TestExternalIPMovesBetweenServices(t *testing.T) {
	cfg := configFor(proxytest.ProxyConfig{ClusterCIDR: proxytest.PodCIDR})
	withIP := func(s *v1.Service) { s.Spec.ExternalIPs = []string{"192.0.2.10"} }
	a, b := proxytest.Svc("a", "10.96.0.10", 80, withIP), proxytest.Svc("b", "10.96.0.11", 80)
	sa, sb := proxytest.Slice("a", 8080, "10.244.1.2@"+proxytest.NodeName), proxytest.Slice("b", 8080, "10.244.2.3@"+proxytest.OtherNode)
	for i := 0; i < 8; i++ { // map order varies: both orders get exercised
		tr := tracker.New(proxy.IPv4, proxytest.NodeName, nil)
		tr.OnNodeUpdate(proxytest.Node())
		for _, s := range []*v1.Service{a, b} {
			tr.OnServiceUpdate(svcKey(s), s)
		}
		tr.OnEndpointSliceUpdate(sa, false)
		tr.OnEndpointSliceUpdate(sb, false)
		fake := knftables.NewFake(knftables.IPv4Family, TableName)
		p := NewProxier(cfg, fake, tr.NextSnapshot)
		if err := p.SyncProxyRules(true); err != nil {
			t.Fatal(err)
		}
		a2, b2 := proxytest.Svc("a", "10.96.0.10", 80), proxytest.Svc("b", "10.96.0.11", 80, withIP)
		tr.OnServiceUpdate(svcKey(a2), a2)
		tr.OnServiceUpdate(svcKey(b2), b2)
		if err := p.SyncProxyRules(false); err != nil {
			t.Fatal(err)
		}
		runChecks(t, fake, []proxytest.Check{{Packet: proxytest.Packet{Src: proxytest.OutsideIP, Dst: "192.0.2.10", Proto: "tcp", Port: 80},
			Want: proxytest.To("10.244.2.3:8080").Masq()}})
	}
}
