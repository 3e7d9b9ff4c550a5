package netns

import (
	"errors"
	"fmt"
	"hash/fnv"
	"net"
	"net/netip"
	"sync"

	"github.com/vishvananda/netlink"
	"github.com/vishvananda/netns"
	"golang.org/x/sys/unix"
)

// gateway is every pod's next hop: a link-local address pinned to the
// node-side veth's MAC by a permanent neighbour entry, so no address of
// the node is spent per pod and no ARP is needed (as Calico does).
var gateway = net.IPv4(169, 254, 1, 1)

// nodeNet is one node's namespace and its place on the host bridge.
type nodeNet struct {
	name     string
	ns       netns.NsHandle
	ip       netip.Addr
	hostLink string // the veth end on the host bridge
	podCIDRs []netip.Prefix
}

// network is the host side: the bridge, its address and the routes to
// every node's pods and to the Services.
type network struct {
	host         netns.NsHandle
	bridge       string
	hostAddr     netip.Prefix
	serviceCIDRs []netip.Prefix

	mu    sync.Mutex
	nodes map[string]*nodeNet
	order []string // nodes by creation; the first carries the Services' route
}

// linkName is a stable interface name (≤ 15 bytes) for key.
func linkName(prefix, key string) string {
	h := fnv.New64a()
	_, _ = h.Write([]byte(key))
	return fmt.Sprintf("%s%x", prefix, h.Sum64())[:15]
}

func handleAt(ns netns.NsHandle) (*netlink.Handle, error) {
	return netlink.NewHandleAt(ns)
}

// setupHost removes what a crashed agent left (the bridge and its routes;
// its namespaces died with it) and makes the bridge afresh.
func (n *network) setupHost() error {
	h, err := handleAt(n.host)
	if err != nil {
		return err
	}
	defer h.Close()
	if err := n.removeBridge(h); err != nil {
		return err
	}
	br := &netlink.Bridge{LinkAttrs: netlink.LinkAttrs{Name: n.bridge}}
	if err := h.LinkAdd(br); err != nil {
		return fmt.Errorf("bridge %s: %w", n.bridge, err)
	}
	addr := &netlink.Addr{IPNet: prefixNet(n.hostAddr)}
	if err := h.AddrAdd(br, addr); err != nil {
		return fmt.Errorf("bridge %s address %s: %w", n.bridge, n.hostAddr, err)
	}
	return h.LinkSetUp(br)
}

// removeBridge deletes the bridge and the node veths on it (a crashed
// agent's), which takes their routes along.
func (n *network) removeBridge(h *netlink.Handle) error {
	br, err := h.LinkByName(n.bridge)
	var nf netlink.LinkNotFoundError
	if errors.As(err, &nf) {
		return nil
	}
	if err != nil {
		return err
	}
	links, _ := h.LinkList()
	for _, l := range links {
		if l.Attrs().MasterIndex == br.Attrs().Index {
			_ = h.LinkDel(l)
		}
	}
	return h.LinkDel(br)
}

// teardown removes the host side: the nodes' veths and the bridge.
func (n *network) teardown() error {
	h, err := handleAt(n.host)
	if err != nil {
		return err
	}
	defer h.Close()
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, nn := range n.nodes {
		if l, err := h.LinkByName(nn.hostLink); err == nil {
			_ = h.LinkDel(l)
		}
		nn.ns.Close()
	}
	n.nodes = map[string]*nodeNet{}
	n.order = nil
	return n.removeBridge(h)
}

func prefixNet(p netip.Prefix) *net.IPNet {
	return &net.IPNet{IP: p.Addr().AsSlice(), Mask: net.CIDRMask(p.Bits(), p.Addr().BitLen())}
}

func hostNet(a netip.Addr) *net.IPNet {
	return &net.IPNet{IP: a.AsSlice(), Mask: net.CIDRMask(a.BitLen(), a.BitLen())}
}

// node returns the node's namespace, creating it (attached to the bridge
// with address ip) the first time.
func (n *network) node(name string, ip netip.Addr) (*nodeNet, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if nn := n.nodes[name]; nn != nil {
		return nn, nil
	}
	if !n.hostAddr.Contains(ip) {
		return nil, fmt.Errorf("node %s: InternalIP %s is outside the host bridge's %s", name, ip, n.hostAddr.Masked())
	}
	ns, err := newNS()
	if err != nil {
		return nil, err
	}
	nn := &nodeNet{name: name, ns: ns, ip: ip, hostLink: linkName("svn", name)}
	if err := n.plugNode(nn); err != nil {
		ns.Close()
		return nil, fmt.Errorf("node %s: %w", name, err)
	}
	n.nodes[name] = nn
	n.order = append(n.order, name)
	if len(n.order) == 1 {
		if err := n.routeServices(nn); err != nil {
			return nil, err
		}
	}
	return nn, nil
}

func (n *network) plugNode(nn *nodeNet) error {
	h, err := handleAt(n.host)
	if err != nil {
		return err
	}
	defer h.Close()
	br, err := h.LinkByName(n.bridge)
	if err != nil {
		return fmt.Errorf("bridge %s: %w", n.bridge, err)
	}
	veth := &netlink.Veth{LinkAttrs: netlink.LinkAttrs{Name: nn.hostLink, MasterIndex: br.Attrs().Index},
		PeerName: "eth0", PeerNamespace: netlink.NsFd(int(nn.ns))}
	if old, err := h.LinkByName(nn.hostLink); err == nil {
		_ = h.LinkDel(old)
	}
	if err := h.LinkAdd(veth); err != nil {
		return fmt.Errorf("veth %s: %w", nn.hostLink, err)
	}
	if err := linkUp(h, nn.hostLink); err != nil {
		return err
	}
	nh, err := handleAt(nn.ns)
	if err != nil {
		return err
	}
	defer nh.Close()
	if err := linkUp(nh, "lo"); err != nil {
		return err
	}
	eth, err := nh.LinkByName("eth0")
	if err != nil {
		return err
	}
	addr := netip.PrefixFrom(nn.ip, n.hostAddr.Bits())
	if err := nh.AddrAdd(eth, &netlink.Addr{IPNet: prefixNet(addr)}); err != nil {
		return fmt.Errorf("address %s: %w", addr, err)
	}
	if err := nh.LinkSetUp(eth); err != nil {
		return err
	}
	// Everything else (the API server, the cluster DNS at the host's
	// addresses) through the host, as a node's default gateway.
	if err := nh.RouteAdd(&netlink.Route{LinkIndex: eth.Attrs().Index, Gw: n.hostAddr.Addr().AsSlice()}); err != nil {
		return fmt.Errorf("default route via %s: %w", n.hostAddr.Addr(), err)
	}
	for _, s := range [][2]string{{"net/ipv4/ip_forward", "1"}, {"net/ipv4/conf/all/send_redirects", "0"},
		{"net/ipv4/conf/eth0/send_redirects", "0"}, {"net/ipv4/conf/all/route_localnet", "1"}} {
		if err := writeSysctl(nn.ns, s[0], s[1]); err != nil {
			return fmt.Errorf("sysctl %s: %w", s[0], err)
		}
	}
	return nil
}

func linkUp(h *netlink.Handle, name string) error {
	l, err := h.LinkByName(name)
	if err != nil {
		return err
	}
	return h.LinkSetUp(l)
}

// routeServices sends the host's traffic to the service CIDRs to the
// first node: its proxy answers ClusterIPs as any node's would.
func (n *network) routeServices(first *nodeNet) error {
	h, err := handleAt(n.host)
	if err != nil {
		return err
	}
	defer h.Close()
	for _, c := range n.serviceCIDRs {
		if !c.Addr().Is4() {
			continue
		}
		if err := h.RouteReplace(&netlink.Route{Dst: prefixNet(c), Gw: first.ip.AsSlice()}); err != nil {
			return fmt.Errorf("route %s via %s: %w", c, first.ip, err)
		}
	}
	return nil
}

// setPodCIDRs records a node's pod CIDRs and routes them (host-gw): from
// the host and from every other node via the node's address; the node
// gets routes to the others' already known.
func (n *network) setPodCIDRs(nn *nodeNet, cidrs []netip.Prefix) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	nn.podCIDRs = cidrs
	route := func(ns netns.NsHandle, dst netip.Prefix, via netip.Addr) error {
		if !dst.Addr().Is4() {
			return nil // IPv4 only
		}
		h, err := handleAt(ns)
		if err != nil {
			return err
		}
		defer h.Close()
		if err := h.RouteReplace(&netlink.Route{Dst: prefixNet(dst), Gw: via.AsSlice()}); err != nil {
			return fmt.Errorf("route %s via %s: %w", dst, via, err)
		}
		return nil
	}
	for _, c := range cidrs {
		if err := route(n.host, c, nn.ip); err != nil {
			return err
		}
		for _, other := range n.nodes {
			if other == nn {
				continue
			}
			if err := route(other.ns, c, nn.ip); err != nil {
				return err
			}
		}
	}
	for _, other := range n.nodes {
		for _, c := range other.podCIDRs {
			if other != nn {
				if err := route(nn.ns, c, other.ip); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// podNet is one pod's namespace and its veth in the node's.
type podNet struct {
	ns       netns.NsHandle
	nodeLink string
}

// addPod makes a pod's namespace with address ip, plugged into node.
func addPod(node *nodeNet, key string, ip netip.Addr) (*podNet, error) {
	ns, err := newNS()
	if err != nil {
		return nil, err
	}
	p := &podNet{ns: ns, nodeLink: linkName("vp", key)}
	if err := plugPod(node, p, ip); err != nil {
		p.remove(node)
		return nil, err
	}
	return p, nil
}

func plugPod(node *nodeNet, p *podNet, ip netip.Addr) error {
	nh, err := handleAt(node.ns)
	if err != nil {
		return err
	}
	defer nh.Close()
	if old, err := nh.LinkByName(p.nodeLink); err == nil {
		_ = nh.LinkDel(old)
	}
	veth := &netlink.Veth{LinkAttrs: netlink.LinkAttrs{Name: p.nodeLink}, PeerName: "eth0", PeerNamespace: netlink.NsFd(int(p.ns))}
	if err := nh.LinkAdd(veth); err != nil {
		return fmt.Errorf("veth %s: %w", p.nodeLink, err)
	}
	l, err := nh.LinkByName(p.nodeLink)
	if err != nil {
		return err
	}
	if err := nh.LinkSetUp(l); err != nil {
		return err
	}
	if err := nh.RouteReplace(&netlink.Route{LinkIndex: l.Attrs().Index, Dst: hostNet(ip), Scope: netlink.SCOPE_LINK}); err != nil {
		return fmt.Errorf("route %s dev %s: %w", ip, p.nodeLink, err)
	}
	ph, err := handleAt(p.ns)
	if err != nil {
		return err
	}
	defer ph.Close()
	if err := linkUp(ph, "lo"); err != nil {
		return err
	}
	eth, err := ph.LinkByName("eth0")
	if err != nil {
		return err
	}
	if err := ph.AddrAdd(eth, &netlink.Addr{IPNet: hostNet(ip)}); err != nil {
		return fmt.Errorf("address %s: %w", ip, err)
	}
	if err := ph.LinkSetUp(eth); err != nil {
		return err
	}
	gw := &net.IPNet{IP: gateway, Mask: net.CIDRMask(32, 32)}
	if err := ph.NeighAdd(&netlink.Neigh{LinkIndex: eth.Attrs().Index, Family: unix.AF_INET, State: netlink.NUD_PERMANENT,
		IP: gateway, HardwareAddr: l.Attrs().HardwareAddr}); err != nil {
		return fmt.Errorf("gateway neighbour: %w", err)
	}
	if err := ph.RouteAdd(&netlink.Route{LinkIndex: eth.Attrs().Index, Dst: gw, Scope: netlink.SCOPE_LINK}); err != nil {
		return fmt.Errorf("gateway route: %w", err)
	}
	if err := ph.RouteAdd(&netlink.Route{LinkIndex: eth.Attrs().Index, Gw: gateway}); err != nil {
		return fmt.Errorf("default route: %w", err)
	}
	return nil
}

// remove deletes the pod's veth (both ends) and closes its namespace,
// which the kernel frees once no socket or process holds it.
func (p *podNet) remove(node *nodeNet) {
	if nh, err := handleAt(node.ns); err == nil {
		if l, err := nh.LinkByName(p.nodeLink); err == nil {
			_ = nh.LinkDel(l)
		}
		nh.Close()
	}
	p.ns.Close()
}
