package bench

import (
	"fmt"
	"net"

	"github.com/vishvananda/netlink"
	"github.com/vishvananda/netns"
)

// vethPair is the floor under the pod paths: two namespaces the bench
// made, joined by one veth pair (192.0.2.1 ↔ 192.0.2.2, TEST-NET-1, no
// other route), no node, bridge or netfilter rule between them.
type vethPair struct {
	a, b netns.NsHandle
}

const vethA, vethB = "192.0.2.1", "192.0.2.2"

func newVethPair() (*vethPair, error) {
	p := &vethPair{a: netns.None(), b: netns.None()}
	var err error
	if p.a, err = newNetns(); err != nil {
		return nil, err
	}
	if p.b, err = newNetns(); err != nil {
		p.close()
		return nil, err
	}
	if err := p.plug(); err != nil {
		p.close()
		return nil, fmt.Errorf("veth pair: %w", err)
	}
	return p, nil
}

func (p *vethPair) plug() error {
	ha, err := netlink.NewHandleAt(p.a)
	if err != nil {
		return err
	}
	defer ha.Close()
	hb, err := netlink.NewHandleAt(p.b)
	if err != nil {
		return err
	}
	defer hb.Close()
	veth := &netlink.Veth{LinkAttrs: netlink.LinkAttrs{Name: "eth0"}, PeerName: "eth0", PeerNamespace: netlink.NsFd(int(p.b))}
	if err := ha.LinkAdd(veth); err != nil {
		return err
	}
	for _, side := range []struct {
		h  *netlink.Handle
		ip string
	}{{ha, vethA}, {hb, vethB}} {
		for _, name := range []string{"lo", "eth0"} {
			l, err := side.h.LinkByName(name)
			if err != nil {
				return err
			}
			if name == "eth0" {
				addr := &netlink.Addr{IPNet: &net.IPNet{IP: net.ParseIP(side.ip), Mask: net.CIDRMask(24, 32)}}
				if err := side.h.AddrAdd(l, addr); err != nil {
					return err
				}
			}
			if err := side.h.LinkSetUp(l); err != nil {
				return err
			}
		}
	}
	return nil
}

// close frees both namespaces (and the pair with them) once no socket
// holds them.
func (p *vethPair) close() {
	if p.a.IsOpen() {
		p.a.Close()
	}
	if p.b.IsOpen() {
		p.b.Close()
	}
}
