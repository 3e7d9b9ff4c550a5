package userspace

import (
	"context"
	"errors"
	"net/netip"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/knftables"

	"github.com/svcplane/svcplane/internal/proxy"
	"github.com/svcplane/svcplane/internal/proxy/nftables"
)

// countingNFT counts the transactions run on the table and keeps the
// number of operations of the last.
type countingNFT struct {
	knftables.Interface
	runs, lastOps int
}

func (c *countingNFT) Run(ctx context.Context, tx *knftables.Transaction) error {
	c.runs++
	c.lastOps = tx.NumOperations()
	return c.Interface.Run(ctx, tx)
}

// A partial sync visits only the changed ports: an endpoint change that
// leaves the port with endpoints swaps its pool and runs no transaction;
// a port losing its last endpoint, or a new port, changes only its own
// portal element and the refusal chain; the other ports keep their
// listeners.
func TestPartialSyncs(t *testing.T) {
	web := proxy.ServicePortName{Namespace: "ns", Name: "web", Port: "p", Protocol: proxy.TCP}
	other := proxy.ServicePortName{Namespace: "ns", Name: "other", Port: "p", Protocol: proxy.TCP}
	added := proxy.ServicePortName{Namespace: "ns", Name: "added", Port: "p", Protocol: proxy.TCP}
	ep := func(s string) []proxy.Endpoint {
		return []proxy.Endpoint{{IP: netip.MustParseAddr(s), Port: 8080, Ready: true, Serving: true}}
	}
	svc := func(name proxy.ServicePortName, vip string) *proxy.ServicePort {
		return &proxy.ServicePort{Name: name, Protocol: proxy.TCP, ClusterIP: netip.MustParseAddr(vip), Port: 80}
	}
	snap := &proxy.Snapshot{Family: proxy.IPv4,
		Services:  map[proxy.ServicePortName]*proxy.ServicePort{web: svc(web, "10.96.0.10"), other: svc(other, "10.96.0.11")},
		Endpoints: map[proxy.ServicePortName][]proxy.Endpoint{web: ep("10.244.1.2"), other: ep("10.244.1.3")}}
	fake := knftables.NewFake(knftables.IPv4Family, TableName)
	nft := &countingNFT{Interface: fake}
	p, err := NewProxier(Config{ListenAddr: netip.MustParseAddr("127.0.0.1")}, NewRedirector(nft, proxy.IPv4), func() *proxy.Snapshot { return snap }, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	var last proxy.SyncResult
	p.OnSynced = func(res proxy.SyncResult, _, _ *proxy.Snapshot, _ error) { last = res }
	if err := p.SyncProxyRules(false); err != nil { // no change set: full
		t.Fatal(err)
	}
	if !last.Full || nft.runs != 1 {
		t.Fatalf("first sync: full %v, %d transactions", last.Full, nft.runs)
	}
	otherPort := p.services[other].listeners[kindCluster].port()
	next := func(change ...proxy.ServicePortName) {
		t.Helper()
		s := *snap
		s.Services, s.Endpoints = copyMap(snap.Services), copyMap(snap.Endpoints)
		s.Changes = &proxy.ChangeSet{Ports: map[proxy.ServicePortName]struct{}{}}
		for _, n := range change {
			s.Changes.Ports[n] = struct{}{}
		}
		snap = &s
	}

	next(web)
	snap.Endpoints[web] = ep("10.244.2.2")
	if err := p.SyncProxyRules(false); err != nil {
		t.Fatal(err)
	}
	if last.Full || nft.runs != 1 {
		t.Errorf("endpoint change: full %v, %d transactions (want a partial sync and none)", last.Full, nft.runs)
	}
	if eps := p.services[web].listeners[kindCluster].bal.pool.Load().eps; len(eps) != 1 || eps[0].String() != "10.244.2.2:8080" {
		t.Errorf("web's pool after the change: %+v", eps)
	}

	next(web)
	delete(snap.Endpoints, web)
	if err := p.SyncProxyRules(false); err != nil {
		t.Fatal(err)
	}
	// Its element out, the refusal chain flushed and refilled with one rule.
	if nft.runs != 2 || nft.lastOps != 3 || !strings.Contains(fake.Dump(), "10.96.0.10 tcp dport 80 reject") ||
		slices.ContainsFunc(portalStrings(fake), func(s string) bool { return strings.HasPrefix(s, "10.96.0.10 ") }) {
		t.Errorf("web without endpoints: %d transactions (last of %d operations), table:\n%s", nft.runs, nft.lastOps, fake.Dump())
	}

	next(added)
	snap.Services[added], snap.Endpoints[added] = svc(added, "10.96.0.12"), ep("10.244.1.4")
	if err := p.SyncProxyRules(false); err != nil {
		t.Fatal(err)
	}
	// One element added; the refusals are as before.
	portals := portalStrings(fake)
	if nft.runs != 3 || nft.lastOps != 1 || len(portals) != 2 || !strings.HasPrefix(portals[0], "10.96.0.11 . tcp . 80 : ") ||
		!strings.HasPrefix(portals[1], "10.96.0.12 . tcp . 80 : ") {
		t.Errorf("new port: %d transactions (last of %d operations), portals %q, table:\n%s", nft.runs, nft.lastOps, portals, fake.Dump())
	}
	// A full sync writes the whole table again, as it should after the
	// table was changed behind the proxy's back.
	if err := fake.Run(t.Context(), func() *knftables.Transaction {
		tx := fake.NewTransaction()
		tx.Delete(&knftables.Table{})
		return tx
	}()); err != nil {
		t.Fatal(err)
	}
	if err := p.SyncProxyRules(true); err != nil {
		t.Fatal(err)
	}
	if got := portalStrings(fake); !slices.Equal(got, portals) {
		t.Errorf("after a full sync over a deleted table: portals %q, want %q", got, portals)
	}
	if got := p.services[other].listeners[kindCluster].port(); got != otherPort {
		t.Errorf("an unchanged port's listener moved from %d to %d", otherPort, got)
	}
}

func copyMap[K comparable, V any](m map[K]V) map[K]V {
	out := make(map[K]V, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// fakeSender plays the netlink element sender: it applies element changes
// to the fake table as the kernel would, or fails when told to.
type fakeSender struct {
	fake  *knftables.Fake
	fail  bool
	sends int
}

func (f *fakeSender) Send(obj knftables.Object, dels, adds []nftables.Element) error {
	f.sends++
	if f.fail {
		return errors.New("netlink: device or resource busy")
	}
	m := obj.(*knftables.Map)
	tx := f.fake.NewTransaction()
	for _, e := range dels {
		tx.Delete(&knftables.Element{Map: m.Name, Key: strings.Split(e.Key, " . ")})
	}
	for _, e := range adds {
		tx.Add(&knftables.Element{Map: m.Name, Key: strings.Split(e.Key, " . "), Value: []string{e.Value}})
	}
	return f.fake.Run(context.Background(), tx)
}

func (f *fakeSender) Close() {}

// With an element sender, a change of portals only goes through it and
// runs no nft transaction; a change of refusals still goes through nft;
// when the sender fails, the whole table is written through nft.
func TestRedirectorSendsPortalElements(t *testing.T) {
	fake := knftables.NewFake(knftables.IPv4Family, TableName)
	nft := &countingNFT{Interface: fake}
	r := NewRedirector(nft, proxy.IPv4)
	sender := &fakeSender{fake: fake}
	r.elems = sender
	a := Portal{Dst: netip.MustParseAddr("10.96.0.10"), Proto: proxy.TCP, Port: 80, To: 40000}
	b := Portal{Dst: netip.MustParseAddr("10.96.0.11"), Proto: proxy.UDP, Port: 53, To: 40001}
	void := Refusal{Dst: netip.MustParseAddr("10.96.0.12"), Proto: proxy.TCP, Port: 80}
	sync := func(portals []Portal, refusals []Refusal, full bool) {
		t.Helper()
		if err := r.Sync(t.Context(), portals, refusals, full); err != nil {
			t.Fatal(err)
		}
	}
	sync([]Portal{a}, nil, true)
	if nft.runs != 1 || sender.sends != 0 {
		t.Fatalf("full sync: %d nft runs, %d sends; want 1 and 0", nft.runs, sender.sends)
	}
	b2 := a
	b2.To = 40002
	sync([]Portal{b2, b}, nil, false)
	want := []string{"10.96.0.10 . tcp . 80 : 40002", "10.96.0.11 . udp . 53 : 40001"}
	if got := portalStrings(fake); nft.runs != 1 || sender.sends != 1 || !slices.Equal(got, want) {
		t.Fatalf("portals only: %d nft runs, %d sends, portals %q; want 1, 1, %q", nft.runs, sender.sends, got, want)
	}
	sync([]Portal{b2, b}, []Refusal{void}, false)
	if nft.runs != 2 || sender.sends != 1 || len(ruleStrings(fake, chainRefusals)) != 1 {
		t.Fatalf("a refusal: %d nft runs, %d sends; want 2 and 1\n%s", nft.runs, sender.sends, fake.Dump())
	}
	sender.fail = true
	sync([]Portal{b}, []Refusal{void}, false)
	if got := portalStrings(fake); nft.runs != 3 || nft.lastOps < 10 || !slices.Equal(got, want[1:]) {
		t.Fatalf("after a failed send: %d nft runs (last of %d operations), portals %q; want the whole table written and %q", nft.runs, nft.lastOps, got, want[1:])
	}
}
