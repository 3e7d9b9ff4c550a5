package ipvs

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"

	libipvs "github.com/moby/ipvs"

	"github.com/svcplane/svcplane/internal/proxy"
)

// FlagPersistent is IP_VS_SVC_F_PERSISTENT (ClientIP affinity).
const FlagPersistent = 0x1

// VirtualServer is one IPVS service.
type VirtualServer struct {
	Address   netip.Addr
	Protocol  proxy.Protocol
	Port      uint16
	Scheduler string
	Flags     uint32
	// Timeout is the persistence timeout in seconds.
	Timeout uint32
}

// Key identifies a virtual server: "tcp/10.96.0.10:80".
func (v *VirtualServer) Key() string {
	return strings.ToLower(string(v.Protocol)) + "/" + netip.AddrPortFrom(v.Address, v.Port).String()
}

// RealServer is one destination of a virtual server.
type RealServer struct {
	Address netip.Addr
	Port    uint16
	Weight  int
	// ActiveConn and InactiveConn are the kernel's connection counters
	// (GetRealServers fills them; adds and updates ignore them). A real
	// server being drained is deleted once both are 0.
	ActiveConn   int
	InactiveConn int
}

// Key is "ip:port".
func (r *RealServer) Key() string { return netip.AddrPortFrom(r.Address, r.Port).String() }

// Handle is the part of the IPVS netlink API the Proxier uses. The errors
// are the kernel's: syscall.EEXIST for duplicates, syscall.ENOENT for
// missing objects.
type Handle interface {
	GetVirtualServers() ([]*VirtualServer, error)
	AddVirtualServer(*VirtualServer) error
	UpdateVirtualServer(*VirtualServer) error
	DeleteVirtualServer(*VirtualServer) error
	GetRealServers(*VirtualServer) ([]*RealServer, error)
	AddRealServer(*VirtualServer, *RealServer) error
	UpdateRealServer(*VirtualServer, *RealServer) error
	DeleteRealServer(*VirtualServer, *RealServer) error
}

// KernelSupport reports why IPVS cannot be used, or nil. It loads the
// ip_vs module when modprobe is available.
func KernelSupport() error {
	if _, err := os.Stat("/proc/net/ip_vs"); err == nil {
		return nil
	}
	why := "/proc/net/ip_vs does not exist"
	if out, err := exec.Command("modprobe", "ip_vs").CombinedOutput(); err != nil {
		why += fmt.Sprintf("; modprobe ip_vs: %v %s", err, strings.TrimSpace(string(out)))
	} else if _, err := os.Stat("/proc/net/ip_vs"); err == nil {
		return nil
	}
	return errors.New("the kernel has no IPVS: " + why)
}

// netlinkHandle is the real Handle over github.com/moby/ipvs. The IPv4
// and IPv6 Proxiers (and their graceful termination loops) share one, so
// calls are serialized: the library's netlink socket is not safe for
// concurrent requests (upstream's runner locks the same way).
type netlinkHandle struct {
	mu sync.Mutex
	h  *libipvs.Handle
}

// NewHandle opens IPVS netlink in the current network namespace.
func NewHandle() (Handle, error) {
	h, err := libipvs.New("")
	if err != nil {
		return nil, fmt.Errorf("ipvs netlink: %w", err)
	}
	return &netlinkHandle{h: h}, nil
}

func protoNum(p proxy.Protocol) uint16 {
	switch p {
	case proxy.UDP:
		return syscall.IPPROTO_UDP
	case proxy.SCTP:
		return 132
	}
	return syscall.IPPROTO_TCP
}

func protoOf(n uint16) proxy.Protocol {
	switch n {
	case syscall.IPPROTO_UDP:
		return proxy.UDP
	case 132:
		return proxy.SCTP
	}
	return proxy.TCP
}

func toLib(v *VirtualServer) *libipvs.Service {
	fam, mask := uint16(syscall.AF_INET), uint32(0xffffffff)
	if v.Address.Is6() {
		fam, mask = syscall.AF_INET6, 128
	}
	return &libipvs.Service{Address: net.IP(v.Address.AsSlice()), Protocol: protoNum(v.Protocol), Port: v.Port,
		SchedName: v.Scheduler, Flags: v.Flags, Timeout: v.Timeout, Netmask: mask, AddressFamily: fam}
}

func toLibDest(r *RealServer) *libipvs.Destination {
	fam := uint16(syscall.AF_INET)
	if r.Address.Is6() {
		fam = syscall.AF_INET6
	}
	return &libipvs.Destination{Address: net.IP(r.Address.AsSlice()), Port: r.Port, Weight: r.Weight, AddressFamily: fam}
}

func (n *netlinkHandle) GetVirtualServers() ([]*VirtualServer, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	svcs, err := n.h.GetServices()
	if err != nil {
		return nil, err
	}
	out := make([]*VirtualServer, 0, len(svcs))
	for _, s := range svcs {
		a, _ := netip.AddrFromSlice(s.Address)
		out = append(out, &VirtualServer{Address: a.Unmap(), Protocol: protoOf(s.Protocol), Port: s.Port,
			Scheduler: s.SchedName, Flags: s.Flags &^ 0x2 /* hashed */, Timeout: s.Timeout})
	}
	return out, nil
}

func (n *netlinkHandle) AddVirtualServer(v *VirtualServer) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.h.NewService(toLib(v))
}

func (n *netlinkHandle) UpdateVirtualServer(v *VirtualServer) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.h.UpdateService(toLib(v))
}

func (n *netlinkHandle) DeleteVirtualServer(v *VirtualServer) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.h.DelService(toLib(v))
}

func (n *netlinkHandle) GetRealServers(v *VirtualServer) ([]*RealServer, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	ds, err := n.h.GetDestinations(toLib(v))
	if err != nil {
		return nil, err
	}
	out := make([]*RealServer, 0, len(ds))
	for _, d := range ds {
		a, _ := netip.AddrFromSlice(d.Address)
		out = append(out, &RealServer{Address: a.Unmap(), Port: d.Port, Weight: d.Weight,
			ActiveConn: d.ActiveConnections, InactiveConn: d.InactiveConnections})
	}
	return out, nil
}

func (n *netlinkHandle) AddRealServer(v *VirtualServer, r *RealServer) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.h.NewDestination(toLib(v), toLibDest(r))
}

func (n *netlinkHandle) UpdateRealServer(v *VirtualServer, r *RealServer) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.h.UpdateDestination(toLib(v), toLibDest(r))
}

func (n *netlinkHandle) DeleteRealServer(v *VirtualServer, r *RealServer) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.h.DelDestination(toLib(v), toLibDest(r))
}
