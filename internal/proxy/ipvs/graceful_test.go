package ipvs

import (
	"context"
	"net/netip"
	"slices"
	"strconv"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	testingclock "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"

	"github.com/svcplane/svcplane/internal/proxy"
	"github.com/svcplane/svcplane/internal/proxy/proxytest"
	"github.com/svcplane/svcplane/internal/testutil"
)

const drainEvery = 30 * time.Second

var webVS = &VirtualServer{Address: netip.MustParseAddr("10.96.0.10"), Protocol: proxy.TCP, Port: 80}

type drainTest struct {
	*fakes
	clk  *testingclock.FakeClock
	snap *proxy.Snapshot
	p    *Proxier
}

func newDrainTest(t *testing.T) *drainTest {
	d := &drainTest{fakes: newFakes(), clk: testingclock.NewFakeClock(time.Unix(1_700_000_000, 0))}
	d.p = d.newProxier(t)
	return d
}

func (d *drainTest) newProxier(t *testing.T) *Proxier {
	t.Helper()
	p, err := NewProxier(Config{Family: proxy.IPv4, GracefulTerminationInterval: drainEvery},
		d.handle, d.sets, d.links, d.ipt, func() *proxy.Snapshot { return d.snap }, d.clk)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// web sets the snapshot to Service web (TCP unless udp) with endpoints
// ("ip@node[,t]", on port 8080) and syncs.
func (d *drainTest) web(t *testing.T, full, udp bool, eps ...string) {
	t.Helper()
	var mut []func(*v1.Service)
	sl := proxytest.Slice("web", 8080, eps...)
	if udp {
		mut = append(mut, func(s *v1.Service) { s.Spec.Ports[0].Protocol = v1.ProtocolUDP })
		sl.Ports[0].Protocol = ptr.To(v1.ProtocolUDP)
	}
	d.snap = proxytest.Snapshot(proxy.IPv4, proxytest.Svc("web", "10.96.0.10", 80, mut...), sl)
	d.sync(t, full)
}

func (d *drainTest) sync(t *testing.T, full bool) {
	t.Helper()
	if err := d.p.SyncProxyRules(full); err != nil {
		t.Fatal(err)
	}
}

// weights returns "ip:port=weight" of vs's real servers.
func (d *drainTest) weights(vs *VirtualServer) []string {
	reals, _ := d.handle.GetRealServers(vs)
	var out []string
	for _, r := range reals {
		out = append(out, r.Key()+"="+strconv.Itoa(r.Weight))
	}
	return out
}

func (d *drainTest) expect(t *testing.T, step string, vs *VirtualServer, weights, draining []string) {
	t.Helper()
	if got := d.weights(vs); !slices.Equal(got, weights) {
		t.Errorf("%s: real servers %v, want %v", step, got, weights)
	}
	if got := d.p.Draining(); !slices.Equal(got, draining) {
		t.Errorf("%s: draining %v, want %v", step, got, draining)
	}
}

func (d *drainTest) conns(t *testing.T, vs *VirtualServer, dest string, active, inactive int) {
	t.Helper()
	if err := d.handle.SetConnections(vs, netip.MustParseAddrPort(dest), active, inactive); err != nil {
		t.Fatal(err)
	}
}

const (
	epA = "10.244.1.2@" + proxytest.OtherNode
	epB = "10.244.2.3@" + proxytest.OtherNode
)

func TestGracefulTerminationDrainsBeforeDeleting(t *testing.T) {
	d := newDrainTest(t)
	d.web(t, true, false, epA, epB)
	d.conns(t, webVS, "10.244.2.3:8080", 2, 1)
	d.web(t, false, false, epA)
	drainB := []string{"tcp/10.96.0.10:80/10.244.2.3:8080"}
	d.expect(t, "endpoint removed with connections", webVS, []string{"10.244.1.2:8080=1", "10.244.2.3:8080=0"}, drainB)

	// Neither a full sync nor a check deletes it while it has connections.
	d.sync(t, true)
	if n, err := d.p.DrainTerminated(); n != 0 || err != nil {
		t.Errorf("check with connections: %d deleted, %v", n, err)
	}
	d.expect(t, "still connected", webVS, []string{"10.244.1.2:8080=1", "10.244.2.3:8080=0"}, drainB)

	// Connections ended: a sync before the interval leaves it, the first
	// sync after the interval deletes it.
	d.conns(t, webVS, "10.244.2.3:8080", 0, 0)
	d.clk.Step(drainEvery / 2)
	d.sync(t, false)
	d.expect(t, "drained, interval not passed", webVS, []string{"10.244.1.2:8080=1", "10.244.2.3:8080=0"}, drainB)
	d.clk.Step(drainEvery / 2)
	d.sync(t, false)
	d.expect(t, "drained, interval passed", webVS, []string{"10.244.1.2:8080=1"}, nil)
}

func TestGracefulTerminationWithoutConnectionsDeletesAtOnce(t *testing.T) {
	d := newDrainTest(t)
	d.web(t, true, false, epA, epB)
	d.conns(t, webVS, "10.244.2.3:8080", 0, 0)
	d.web(t, false, false, epA)
	d.expect(t, "no connections", webVS, []string{"10.244.1.2:8080=1"}, nil)
}

func TestGracefulTerminationNotForUDP(t *testing.T) {
	d := newDrainTest(t)
	udpVS := &VirtualServer{Address: webVS.Address, Protocol: proxy.UDP, Port: 80}
	d.web(t, true, true, epA, epB)
	d.conns(t, udpVS, "10.244.2.3:8080", 0, 5)
	d.web(t, false, true, epA)
	d.expect(t, "udp", udpVS, []string{"10.244.1.2:8080=1"}, nil)
}

func TestGracefulTerminationRestoresWeight(t *testing.T) {
	for _, full := range []bool{false, true} {
		d := newDrainTest(t)
		d.web(t, true, false, epA, epB)
		d.conns(t, webVS, "10.244.2.3:8080", 1, 0)
		d.web(t, full, false, epA)
		d.web(t, full, false, epA, epB)
		d.expect(t, "endpoint back", webVS, []string{"10.244.1.2:8080=1", "10.244.2.3:8080=1"}, nil)
		// Its connections were kept (not deleted and re-added).
		reals, _ := d.handle.GetRealServers(webVS)
		if reals[1].ActiveConn != 1 {
			t.Errorf("full=%v: the real server was re-created: %+v", full, reals[1])
		}
		d.conns(t, webVS, "10.244.2.3:8080", 0, 0)
		d.clk.Step(drainEvery)
		d.sync(t, false)
		d.expect(t, "not deleted later", webVS, []string{"10.244.1.2:8080=1", "10.244.2.3:8080=1"}, nil)
	}
}

// A terminating endpoint is drained while ready ones remain, and gets
// its weight back as the fallback when none remain (CategorizeEndpoints).
func TestGracefulTerminationTerminatingEndpoints(t *testing.T) {
	d := newDrainTest(t)
	d.web(t, true, false, epA, epB)
	d.conns(t, webVS, "10.244.2.3:8080", 3, 0)
	d.web(t, false, false, epA, epB+",t")
	d.expect(t, "B terminating, A ready", webVS, []string{"10.244.1.2:8080=1", "10.244.2.3:8080=0"},
		[]string{"tcp/10.96.0.10:80/10.244.2.3:8080"})
	runChecks(t, d.fakes, []proxytest.Check{{
		Packet: proxytest.Packet{Src: proxytest.LocalPodIP, Dst: "10.96.0.10", Proto: "tcp", Port: 80},
		Want:   proxytest.Fate{Verdict: proxytest.Endpoint, Endpoints: []string{"10.244.1.2:8080"}},
	}})
	d.web(t, false, false, epA+",n", epB+",t")
	d.expect(t, "B terminating is the fallback", webVS, []string{"10.244.2.3:8080=1"}, nil)
	d.web(t, true, false, epB+",t")
	d.expect(t, "full sync keeps the fallback", webVS, []string{"10.244.2.3:8080=1"}, nil)
}

func TestGracefulTerminationVirtualServerDeleted(t *testing.T) {
	d := newDrainTest(t)
	d.web(t, true, false, epA, epB)
	d.conns(t, webVS, "10.244.2.3:8080", 1, 0)
	d.web(t, false, false, epA)
	d.snap = proxytest.Snapshot(proxy.IPv4)
	d.sync(t, false)
	if vss, _ := d.handle.GetVirtualServers(); len(vss) != 0 || len(d.p.Draining()) != 0 {
		t.Errorf("service removed: virtual servers %v, draining %v", vss, d.p.Draining())
	}
}

// A new process finds a real server at weight 0 with connections that it
// does not want: it drains it rather than cutting the connections.
func TestGracefulTerminationAfterRestart(t *testing.T) {
	d := newDrainTest(t)
	d.web(t, true, false, epA, epB)
	d.conns(t, webVS, "10.244.2.3:8080", 1, 0)
	d.web(t, false, false, epA)
	d.p = d.newProxier(t)
	d.sync(t, true)
	d.expect(t, "after restart", webVS, []string{"10.244.1.2:8080=1", "10.244.2.3:8080=0"},
		[]string{"tcp/10.96.0.10:80/10.244.2.3:8080"})
}

// RunGracefulTermination checks on its ticker, stepped by the fake clock.
func TestRunGracefulTermination(t *testing.T) {
	d := newDrainTest(t)
	checked := make(chan struct{}, 1)
	d.p.afterDrain = func() { checked <- struct{}{} }
	d.web(t, true, false, epA, epB)
	d.conns(t, webVS, "10.244.2.3:8080", 1, 0)
	d.web(t, false, false, epA)

	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() { defer close(done); d.p.RunGracefulTermination(ctx) }()
	testutil.Eventually(t, 10*time.Second, "the drain loop to wait on its ticker", d.clk.HasWaiters)
	d.clk.Step(drainEvery)
	<-checked
	d.expect(t, "first tick, connected", webVS, []string{"10.244.1.2:8080=1", "10.244.2.3:8080=0"},
		[]string{"tcp/10.96.0.10:80/10.244.2.3:8080"})
	d.conns(t, webVS, "10.244.2.3:8080", 0, 0)
	d.clk.Step(drainEvery)
	<-checked
	d.expect(t, "second tick, drained", webVS, []string{"10.244.1.2:8080=1"}, nil)
	cancel()
	<-done
}
