package ipvs

import (
	"net/netip"
	"slices"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	discovery "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/svcplane/svcplane/internal/proxy"
	"github.com/svcplane/svcplane/internal/proxy/iptables"
	"github.com/svcplane/svcplane/internal/proxy/proxytest"
)

const nodeIPv6 = "fd00:192:168::2"

func TestSetNamesPerFamily(t *testing.T) {
	if got := SetName(proxy.IPv6, setLoadBalancerSrc); got != "KUBE-6-LOAD-BALANCER-SOURCE-CID" {
		t.Errorf("IPv6 source-CIDR set: %q (upstream truncates to 31 characters)", got)
	}
	if got := SetName(proxy.IPv6, setClusterIP); got != "KUBE-6-CLUSTER-IP" {
		t.Errorf("IPv6 cluster-IP set: %q", got)
	}
	if got := SetName(proxy.IPv4, setClusterIP); got != setClusterIP {
		t.Errorf("IPv4 names are upstream's unchanged: %q", got)
	}
	seen := map[string]bool{}
	for _, fam := range []proxy.IPFamily{proxy.IPv4, proxy.IPv6} {
		for name := range familySets(fam) {
			if len(name) > maxSetNameLen || seen[name] {
				t.Errorf("set name %q: too long or used by both families", name)
			}
			seen[name] = true
		}
	}
}

func TestFakeIPSetEnforcesFamilyAndType(t *testing.T) {
	s := NewFakeIPSet()
	ctx := t.Context()
	if err := s.Restore(ctx, "create A hash:ip,port family inet hashsize 1024 maxelem 65536\ncreate B bitmap:port range 0-65535\n"); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{
		"add A fd00::1,tcp:80", // IPv6 address in an inet set
		"add A 10.0.0.1",       // not ip,proto:port
		"add B 70000",          // not a port
		"create A hash:ip,port family inet6 -exist", // same name, other family
		"create C bitmap:port family inet range 0-65535",
		"create D hash:ip,port,net family inet6\nadd D fd00::1,tcp:80,10.0.0.0/8",
	} {
		if err := s.Restore(ctx, bad); err == nil {
			t.Errorf("%q: want an error", bad)
		}
	}
	if err := s.Restore(ctx, "create A hash:ip,port family inet -exist\nadd A 10.0.0.1,tcp:80\ncreate E hash:ip,port,net family inet6\nadd E fd00::1,udp:53,fd00:1::/64\n"); err != nil {
		t.Fatal(err)
	}
	if len(s.Sets) != 3 || s.Kinds["E"] != "hash:ip,port,net inet6" {
		t.Errorf("sets %v kinds %v", s.Sets, s.Kinds)
	}
}

// nodeDual is the scenarios' node with an IPv6 address too.
func nodeDual() *v1.Node {
	n := proxytest.Node()
	n.Status.Addresses = append(n.Status.Addresses, v1.NodeAddress{Type: v1.NodeInternalIP, Address: nodeIPv6})
	return n
}

func slice6(name string, port int32, endpoints ...string) *discovery.EndpointSlice {
	s := proxytest.Slice(name, port, endpoints...)
	s.Name += "-v6"
	s.AddressType = discovery.AddressTypeIPv6
	return s
}

// dualSnaps are the v4 and v6 snapshots of a dual-stack Service "web"
// (NodePort 30080) plus, when extra, a single-stack Service per family.
func dualSnaps(extra bool) (v4, v6 *proxy.Snapshot) {
	web := proxytest.Svc("web", "10.96.0.10", 80, proxytest.NodePort(30080), func(s *v1.Service) {
		s.Spec.ClusterIPs = []string{"10.96.0.10", "fd00:10:96::10"}
		s.Spec.IPFamilies = []v1.IPFamily{v1.IPv4Protocol, v1.IPv6Protocol}
	})
	objs := []runtime.Object{nodeDual(), web,
		proxytest.Slice("web", 8080, "10.244.1.2@"+proxytest.OtherNode),
		slice6("web", 8080, "fd00:10:244::2@"+proxytest.OtherNode)}
	if extra {
		only6 := proxytest.Svc("only6", "fd00:10:96::20", 53, func(s *v1.Service) {
			s.Spec.IPFamilies = []v1.IPFamily{v1.IPv6Protocol}
		})
		objs = append(objs, proxytest.Svc("only4", "10.96.0.20", 53),
			proxytest.Slice("only4", 5353, "10.244.1.3@"+proxytest.OtherNode),
			only6, slice6("only6", 5353, "fd00:10:244::3@"+proxytest.OtherNode))
	}
	return proxytest.Snapshot(proxy.IPv4, objs...), proxytest.Snapshot(proxy.IPv6, objs...)
}

type dualNode struct {
	f          *fakes
	ipt6       *iptables.Fake
	p4, p6     *Proxier
	snap4, sn6 *proxy.Snapshot
}

// newDualNode runs an IPv4 and an IPv6 Proxier on one fake kernel (one
// IPVS, one ipset, one kube-ipvs0), each with its own iptables fake
// (iptables and ip6tables keep separate tables).
func newDualNode(t *testing.T) *dualNode {
	d := &dualNode{f: newFakes(), ipt6: iptables.NewFake()}
	d.snap4, d.sn6 = dualSnaps(true)
	d.p4 = d.f.proxier(t, Config{Family: proxy.IPv4, ClusterCIDRs: []netip.Prefix{netip.MustParsePrefix("10.244.0.0/16"), netip.MustParsePrefix("fd00:10:244::/48")}}, &d.snap4)
	var err error
	d.p6, err = NewProxier(Config{Family: proxy.IPv6, ClusterCIDRs: []netip.Prefix{netip.MustParsePrefix("10.244.0.0/16"), netip.MustParsePrefix("fd00:10:244::/48")}},
		d.f.handle, d.f.sets, d.f.links, d.ipt6, func() *proxy.Snapshot { return d.sn6 }, nil)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func (d *dualNode) sync(t *testing.T, p *Proxier, full bool) {
	t.Helper()
	if err := p.SyncProxyRules(full); err != nil {
		t.Fatal(err)
	}
}

// keys lists the virtual servers and kube-ipvs0 addresses of a family.
func (d *dualNode) keys(fam proxy.IPFamily) (vss, addrs []string) {
	all, _ := d.f.handle.GetVirtualServers()
	for _, vs := range all {
		if proxy.FamilyOf(vs.Address) == fam {
			vss = append(vss, vs.Key())
		}
	}
	for _, a := range d.f.links.Links[DummyInterface] {
		if proxy.FamilyOf(a) == fam && !a.IsLinkLocalUnicast() {
			addrs = append(addrs, a.String())
		}
	}
	slices.Sort(addrs)
	return vss, addrs
}

func TestDualStackProxiersShareTheKernel(t *testing.T) {
	d := newDualNode(t)
	// The kernel gives an up dummy interface an IPv6 link-local address:
	// not a service address, the IPv6 proxier must leave it.
	linkLocal := mustAddr("fe80::a8bb:ccff:fedd:eeff")
	if err := d.f.links.EnsureDummy(DummyInterface); err != nil {
		t.Fatal(err)
	}
	if err := d.f.links.AddAddr(DummyInterface, linkLocal); err != nil {
		t.Fatal(err)
	}
	d.sync(t, d.p4, true)
	d.sync(t, d.p6, true)
	// Each full sync must leave the other family's state alone.
	d.sync(t, d.p4, true)

	want6 := []string{"tcp/[fd00:10:96::10]:80", "tcp/[fd00:10:96::20]:53", "tcp/[fd00:192:168::2]:30080"}
	want4 := []string{"tcp/10.96.0.10:80", "tcp/10.96.0.20:53", "tcp/192.168.0.2:30080"}
	check := func(step string, w4, w6, a4, a6 []string) {
		t.Helper()
		vss4, addrs4 := d.keys(proxy.IPv4)
		vss6, addrs6 := d.keys(proxy.IPv6)
		if !slices.Equal(vss4, w4) || !slices.Equal(vss6, w6) || !slices.Equal(addrs4, a4) || !slices.Equal(addrs6, a6) {
			t.Errorf("%s:\nIPv4 %v %v, want %v %v\nIPv6 %v %v, want %v %v", step, vss4, addrs4, w4, a4, vss6, addrs6, w6, a6)
		}
	}
	check("both synced", want4, want6, []string{"10.96.0.10", "10.96.0.20"}, []string{"fd00:10:96::10", "fd00:10:96::20"})

	reals, _ := d.f.handle.GetRealServers(&VirtualServer{Address: mustAddr("fd00:10:96::10"), Protocol: proxy.TCP, Port: 80})
	if len(reals) != 1 || reals[0].Key() != "[fd00:10:244::2]:8080" {
		t.Errorf("IPv6 real servers: %v", reals)
	}
	sets := d.f.sets.Entries()
	if e := sets["KUBE-6-CLUSTER-IP"]; !slices.Equal(e, []string{"fd00:10:96::10,tcp:80", "fd00:10:96::20,tcp:53"}) {
		t.Errorf("KUBE-6-CLUSTER-IP: %v", e)
	}
	if e := sets[setClusterIP]; !slices.Equal(e, []string{"10.96.0.10,tcp:80", "10.96.0.20,tcp:53"}) {
		t.Errorf("KUBE-CLUSTER-IP: %v", e)
	}
	if e := sets["KUBE-6-NODE-PORT-TCP"]; !slices.Equal(e, []string{"30080"}) {
		t.Errorf("KUBE-6-NODE-PORT-TCP: %v", e)
	}
	if d.f.sets.Kinds["KUBE-6-LOOP-BACK"] != "hash:ip,port,ip inet6" || d.f.sets.Kinds[setLoopBack] != "hash:ip,port,ip inet" {
		t.Errorf("set kinds: %v", d.f.sets.Kinds)
	}
	rules6, rules4 := d.ipt6.Dump(), d.f.ipt.Dump()
	for _, w := range []string{"--match-set KUBE-6-CLUSTER-IP dst,dst", "--match-set KUBE-6-NODE-PORT-TCP dst", "! -d ::1/128",
		"! -s fd00:10:244::/48", "--match-set KUBE-6-LOAD-BALANCER-SOURCE-CID dst,dst,src"} {
		if !strings.Contains(rules6, w) {
			t.Errorf("ip6tables rules lack %q:\n%s", w, rules6)
		}
	}
	if strings.Contains(rules6, "10.244.0.0/16") || strings.Contains(rules4, "KUBE-6-") || strings.Contains(rules4, "fd00:") {
		t.Errorf("a family's rules name the other family:\n%s\n%s", rules4, rules6)
	}

	d.traceIPv6(t, []proxytest.Check{
		{Packet: proxytest.Packet{Src: "fd00:10:244::5", Dst: "fd00:10:96::10", Proto: "tcp", Port: 80},
			Want: proxytest.Fate{Verdict: proxytest.Endpoint, Endpoints: []string{"[fd00:10:244::2]:8080"}}},
		{Packet: proxytest.Packet{Src: "2001:db8::9", Dst: nodeIPv6, Proto: "tcp", Port: 30080},
			Want: proxytest.Fate{Verdict: proxytest.Endpoint, Endpoints: []string{"[fd00:10:244::2]:8080"}, Masquerade: true}},
		{Packet: proxytest.Packet{Src: "fd00:10:244::5", Dst: "fd00:10:96::10", Proto: "tcp", Port: 81},
			Want: proxytest.Fate{Verdict: proxytest.Accept}},
	})

	// Partial syncs: a Service of each family goes away; the other
	// family's proxier keeps its own.
	d.snap4, d.sn6 = dualSnaps(false)
	d.sync(t, d.p4, false)
	check("IPv4 only4 removed", []string{want4[0], want4[2]}, want6, []string{"10.96.0.10"}, []string{"fd00:10:96::10", "fd00:10:96::20"})
	d.sync(t, d.p6, false)
	d.sync(t, d.p4, true)
	d.sync(t, d.p6, true)
	check("both removed", []string{want4[0], want4[2]}, []string{want6[0], want6[2]}, []string{"10.96.0.10"}, []string{"fd00:10:96::10"})
	if !slices.Contains(d.f.links.Links[DummyInterface], linkLocal) {
		t.Errorf("the link-local address was removed: %v", d.f.links.Links[DummyInterface])
	}

	if err := Cleanup(t.Context(), d.f.handle, d.f.sets, d.f.links); err != nil {
		t.Fatal(err)
	}
	if vss, _ := d.f.handle.GetVirtualServers(); len(vss) != 0 || len(d.f.sets.Sets) != 0 {
		t.Errorf("Cleanup left virtual servers %v, sets %v", vss, d.f.sets.Entries())
	}
}

// traceIPv6 traces packets over the IPv6 proxier's state: ip6tables, the
// KUBE-6-* sets, the IPv6 virtual servers and addresses.
func (d *dualNode) traceIPv6(t *testing.T, checks []proxytest.Check) {
	t.Helper()
	var svcs []proxytest.IPVSService
	vss, _ := d.f.handle.GetVirtualServers()
	for _, vs := range vss {
		if !vs.Address.Is6() {
			continue
		}
		s := proxytest.IPVSService{Key: vs.Key(), Persistent: vs.Flags&FlagPersistent != 0}
		reals, _ := d.f.handle.GetRealServers(vs)
		for _, r := range reals {
			if r.Weight > 0 { // IPVS never picks a weight-0 (draining) real server
				s.Dests = append(s.Dests, r.Key())
			}
		}
		svcs = append(svcs, s)
	}
	_, bound := d.keys(proxy.IPv6)
	tr, err := proxytest.NewIPVSTracer(d.ipt6.Dump(), d.f.sets.Entries(), svcs, bound, nodeIPv6)
	if err != nil {
		t.Fatal(err)
	}
	if !proxytest.RunChecks(t, tr, checks) {
		t.Logf("sets %v\n%s", d.f.sets.Entries(), d.ipt6.Dump())
	}
}
