package userspace

import (
	"errors"
	"io"
	"net"
	"net/netip"
	"sync"
	"time"

	"k8s.io/klog/v2"

	"github.com/svcplane/svcplane/internal/proxy"
	"github.com/svcplane/svcplane/internal/proxy/scheduler"
)

// listener accepts one kind of traffic of one service port.
type listener struct {
	name        string
	bal         *balancer
	dialTimeout time.Duration
	udpIdle     time.Duration
	tcp         *tcpSocket // accepted by the process's acceptor
	acceptor    *acceptor
	udp         *net.UDPConn
	wg          sync.WaitGroup
	mu          sync.Mutex
	sessions    map[netip.AddrPort]*udpSession
}

// listen opens a listener on addr (port 0: any free port) and starts
// serving.
func listen(name string, proto proxy.Protocol, addr netip.AddrPort, bal *balancer, cfg *Config) (*listener, error) {
	l := &listener{name: name, bal: bal, dialTimeout: cfg.DialTimeout, udpIdle: cfg.UDPIdleTimeout,
		sessions: map[netip.AddrPort]*udpSession{}}
	// Sockets of addr's family only ("udp4"/"udp6"; the acceptor's TCP
	// sockets likewise: an unspecified IPv4 address on "udp" would be a
	// dual-stack IPv6 socket; an IPv6 one is IPV6_V6ONLY), so each
	// family's proxier can bind the same port.
	v := "4"
	if !addr.Addr().Is4() {
		v = "6"
	}
	var err error
	switch proto {
	case proxy.TCP:
		if l.acceptor, err = theAcceptor(); err == nil {
			l.tcp, err = l.acceptor.listenTCP(addr, l.handleTCP)
		}
	case proxy.UDP:
		l.udp, err = net.ListenUDP("udp"+v, net.UDPAddrFromAddrPort(addr))
		if err == nil {
			l.wg.Add(1)
			go l.serveUDP()
		}
	default:
		err = errors.New("the userspace proxy handles TCP and UDP only")
	}
	return l, err
}

// port is the bound port.
func (l *listener) port() uint16 {
	if l.tcp != nil {
		return l.tcp.port
	}
	return l.udp.LocalAddr().(*net.UDPAddr).AddrPort().Port()
}

// close stops accepting; established TCP connections keep running.
func (l *listener) close() {
	if l.tcp != nil {
		l.acceptor.remove(l.tcp)
	}
	if l.udp != nil {
		l.udp.Close()
		l.mu.Lock()
		for _, s := range l.sessions {
			s.conn.Close()
		}
		l.mu.Unlock()
	}
	l.wg.Wait()
}

// refuse closes a connection with a reset, as a REJECT would.
func refuse(c *net.TCPConn) {
	_ = c.SetLinger(0)
	c.Close()
}

// handleTCP connects to an endpoint (retrying others when a connect
// fails) and relays both directions until each side has closed.
func (l *listener) handleTCP(c *net.TCPConn) {
	client := c.RemoteAddr().(*net.TCPAddr).AddrPort().Addr().Unmap()
	p := l.bal.pool.Load()
	if !p.allowed(client) || p.empty() {
		refuse(c)
		return
	}
	tried := map[string]bool{}
	for range p.eps {
		be := l.bal.pick(client, tried)
		if be == nil {
			break
		}
		d, err := net.DialTimeout("tcp", be.Key, l.dialTimeout)
		if err != nil {
			klog.V(3).InfoS("Connect to endpoint failed; trying another", "service", l.name, "endpoint", be.Key, "err", err)
			tried[be.Key] = true
			continue
		}
		be.Active.Add(1)
		relay(c, d.(*net.TCPConn))
		be.Active.Add(-1)
		return
	}
	refuse(c)
}

// relay copies both ways. io.Copy between two *net.TCPConn uses splice(2)
// on Linux; each direction half-closes its destination when done.
func relay(a, b *net.TCPConn) {
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		_, _ = io.Copy(b, a)
		_ = b.CloseWrite()
	}()
	_, _ = io.Copy(a, b)
	_ = a.CloseWrite()
	wg.Wait()
	a.Close()
	b.Close()
}

// udpSession is one client's flow to its endpoint.
type udpSession struct {
	conn    *net.UDPConn
	backend *scheduler.Backend
}

func (l *listener) serveUDP() {
	defer l.wg.Done()
	buf := make([]byte, 64<<10)
	for {
		n, from, err := l.udp.ReadFromUDPAddrPort(buf)
		if err != nil {
			return
		}
		s := l.session(from)
		if s == nil {
			continue // dropped: no endpoint or source not allowed
		}
		_, _ = s.conn.Write(buf[:n])
	}
}

// session returns the client's flow, opening one when needed.
func (l *listener) session(from netip.AddrPort) *udpSession {
	l.mu.Lock()
	defer l.mu.Unlock()
	if s := l.sessions[from]; s != nil {
		return s
	}
	client := from.Addr().Unmap()
	if !l.bal.pool.Load().allowed(client) {
		return nil
	}
	be := l.bal.pick(client, nil)
	if be == nil {
		return nil
	}
	ap, err := netip.ParseAddrPort(be.Key)
	if err != nil {
		return nil
	}
	conn, err := net.DialUDP("udp", nil, net.UDPAddrFromAddrPort(ap))
	if err != nil {
		return nil
	}
	s := &udpSession{conn: conn, backend: be}
	l.sessions[from] = s
	be.Active.Add(1)
	go l.udpReplies(from, s)
	return s
}

// udpReplies sends the endpoint's answers back until the flow idles.
func (l *listener) udpReplies(client netip.AddrPort, s *udpSession) {
	buf := make([]byte, 64<<10)
	defer func() {
		l.mu.Lock()
		delete(l.sessions, client)
		l.mu.Unlock()
		s.backend.Active.Add(-1)
		s.conn.Close()
	}()
	for {
		_ = s.conn.SetReadDeadline(time.Now().Add(l.udpIdle))
		n, err := s.conn.Read(buf)
		if err != nil {
			return
		}
		if _, err := l.udp.WriteToUDPAddrPort(buf[:n], client); err != nil {
			return
		}
	}
}
