package userspace

import (
	"fmt"
	"net/netip"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"sigs.k8s.io/knftables"

	"github.com/svcplane/svcplane/internal/proxy"
	"github.com/svcplane/svcplane/internal/proxy/nftables"
	"github.com/svcplane/svcplane/internal/proxy/proxytest/netlab"
)

// The kernel e2e re-executes this test binary inside network namespaces
// (ip netns exec) in helper roles chosen by netlab.RoleEnv.

func TestMain(m *testing.M) {
	netlab.Main(m.Run, map[string]func() error{
		"serve": func() error { return runServe(os.Getenv("FAMILIES")) },
		// Every datagram from one socket (ONE_SOCKET=1 of netlab's dial).
		"dial": func() error {
			n := 24
			if v := os.Getenv("DIAL_N"); v != "" {
				n, _ = strconv.Atoi(v)
			}
			return netlab.Dial(os.Getenv("PROTO"), os.Getenv("ADDR"), n, 0, true)
		},
	})
}

// labAddrs are the lab's addresses of one family.
type labAddrs struct {
	web, dns, void, voidTCP, node, b1, b2 string
}

var lab = map[proxy.IPFamily]labAddrs{
	proxy.IPv4: {web: "10.96.0.10", dns: "10.96.0.53", void: "10.96.0.99", voidTCP: "10.96.0.98",
		node: "10.100.0.1", b1: "10.244.1.2", b2: "10.244.2.3"},
	proxy.IPv6: {web: "fd00:96::10", dns: "fd00:96::53", void: "fd00:96::99", voidTCP: "fd00:96::98",
		node: "fd00:100::1", b1: "fd00:244:1::2", b2: "fd00:244:2::3"},
}

// serveSnapshot is the served state of one family: web (TCP, with a dead
// endpoint the proxy must retry past, NodePort 30080), dns (UDP), and two
// ports without endpoints: void (UDP, NodePort 30053) and voidtcp (TCP,
// NodePort 30081). The node has an address of each family, IPv4 first.
func serveSnapshot(fam proxy.IPFamily) *proxy.Snapshot {
	a := lab[fam]
	snap := &proxy.Snapshot{Family: fam, Services: map[proxy.ServicePortName]*proxy.ServicePort{},
		Endpoints: map[proxy.ServicePortName][]proxy.Endpoint{},
		Node:      proxy.Node{Name: "node-a", IPs: []netip.Addr{netip.MustParseAddr(lab[proxy.IPv4].node), netip.MustParseAddr(lab[proxy.IPv6].node)}}}
	add := func(name string, proto proxy.Protocol, vip string, port, np uint16, eps ...string) {
		spn := proxy.ServicePortName{Namespace: "ns", Name: name, Port: "p", Protocol: proto}
		snap.Services[spn] = &proxy.ServicePort{Name: spn, Protocol: proto, ClusterIP: netip.MustParseAddr(vip), Port: port, NodePort: np}
		for _, ep := range eps {
			ap := netip.MustParseAddrPort(ep)
			snap.Endpoints[spn] = append(snap.Endpoints[spn], proxy.Endpoint{IP: ap.Addr(), Port: ap.Port(),
				NodeName: "node-b", Ready: true, Serving: true})
		}
	}
	ep := func(ip string, port int) string {
		return netip.AddrPortFrom(netip.MustParseAddr(ip), uint16(port)).String()
	}
	add("web", proxy.TCP, a.web, 80, 30080, ep(a.b1, 8080), ep(a.b2, 8080), ep(a.b2, 9))
	add("dns", proxy.UDP, a.dns, 53, 0, ep(a.b1, 8080))
	add("void", proxy.UDP, a.void, 53, 30053)
	add("voidtcp", proxy.TCP, a.voidTCP, 80, 30081)
	return snap
}

// runServe runs one proxier per family in families ("4", "6" or "4,6";
// default 4), each with its own table, until SIGTERM.
func runServe(families string) error {
	if families == "" {
		families = "4"
	}
	var proxiers []*Proxier
	defer func() {
		for _, p := range proxiers {
			p.Close()
		}
	}()
	for _, f := range strings.Split(families, ",") {
		fam := proxy.IPFamily(4)
		if f == "6" {
			fam = proxy.IPv6
		}
		// A full sync without web, then a partial one adding it: web's
		// portal is the one element the netlink socket sends, and the
		// traffic checks go through it.
		all := serveSnapshot(fam)
		web := proxy.ServicePortName{Namespace: "ns", Name: "web", Port: "p", Protocol: proxy.TCP}
		snap := *all
		snap.Services, snap.Endpoints = copyMap(all.Services), copyMap(all.Endpoints)
		delete(snap.Services, web)
		delete(snap.Endpoints, web)
		cur := &snap
		nft, err := NewNFT(fam)
		if err != nil {
			return err
		}
		r := NewRedirector(nft, fam).WithNetlink()
		sends := &countingSender{elementSender: r.elems}
		r.elems = sends
		p, err := NewProxier(Config{Family: fam}, r, func() *proxy.Snapshot { return cur }, nil)
		if err != nil {
			return err
		}
		proxiers = append(proxiers, p)
		if err := p.SyncProxyRules(true); err != nil {
			return fmt.Errorf("IPv%d: %w", fam, err)
		}
		next := *all
		next.Changes = &proxy.ChangeSet{Ports: map[proxy.ServicePortName]struct{}{web: {}}}
		cur = &next
		if err := p.SyncProxyRules(false); err != nil {
			return fmt.Errorf("IPv%d, adding web: %w", fam, err)
		}
		if sends.ok != 1 {
			return fmt.Errorf("IPv%d: web's portal went in %d netlink transactions, want 1", fam, sends.ok)
		}
	}
	fmt.Println("ready")
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, os.Interrupt)
	<-sig
	return nil
}

// countingSender counts the element transactions that succeed.
type countingSender struct {
	elementSender
	ok int
}

func (c *countingSender) Send(obj knftables.Object, dels, adds []nftables.Element) error {
	err := c.elementSender.Send(obj, dels, adds)
	if err == nil {
		c.ok++
	}
	return err
}
