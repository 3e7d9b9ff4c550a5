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

// listener accepts one kind of traffic of one service port. It is kept
// small (a Proxier holds one per port and kind): the balancer is a field,
// the name is rendered only for a log line, and a TCP listener has no
// UDP session table.
type listener struct {
	bal  balancer
	st   *svcState // the port's state, for the listener's name
	kind kind
	cfg  *Config
	tcp  *tcpSocket // accepted by the process's acceptor
	udp  *net.UDPConn
	wg   sync.WaitGroup
	mu   sync.Mutex
	// sessions is the UDP flows by client (made at the first one).
	sessions map[netip.AddrPort]*udpSession
}

// name is "namespace/name:port/protocol/kind", for logs.
func (l *listener) name() string {
	return l.st.svc.Load().Name.String() + "/" + l.kind.String()
}

// listen opens the listener on addr (port 0: any free port) and starts
// serving.
func (l *listener) listen(proto proxy.Protocol, addr netip.AddrPort) error {
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
		var a *acceptor
		if a, err = theAcceptor(); err == nil {
			l.tcp, err = a.listenTCP(addr, l)
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
	return err
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
		sharedAcceptor.remove(l.tcp)
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
// fails) and relays both directions until each side has closed; it is
// the listener's tcpHandler.
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
		d, err := net.DialTimeout("tcp", be.Key, l.cfg.DialTimeout)
		if err != nil {
			if v := klog.V(3); v.Enabled() {
				v.InfoS("Connect to endpoint failed; trying another", "service", l.name(), "endpoint", be.Key, "err", err)
			}
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
	if l.sessions == nil {
		l.sessions = map[netip.AddrPort]*udpSession{}
	}
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
		_ = s.conn.SetReadDeadline(time.Now().Add(l.cfg.UDPIdleTimeout))
		n, err := s.conn.Read(buf)
		if err != nil {
			return
		}
		if _, err := l.udp.WriteToUDPAddrPort(buf[:n], client); err != nil {
			return
		}
	}
}
