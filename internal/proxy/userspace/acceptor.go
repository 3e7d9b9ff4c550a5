package userspace

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"sync"
	"time"

	"golang.org/x/sys/unix"
	"k8s.io/klog/v2"
)

// acceptor accepts the connections of every TCP listener of the process
// in one goroutine blocked in epoll_wait, instead of one goroutine blocked
// in Accept per listener: the userspace proxy holds a listener per
// Service port and kind, and 5,000 idle accept goroutines cost ~11 MB of
// stacks. Accepted connections become *net.TCPConn (Go's poller) and each
// is relayed in its own goroutine as before.
//
// A listener's socket is registered level-triggered; the loop accepts
// until EAGAIN under the acceptor's lock, and removing a socket takes the
// same lock, so once remove returns no accept runs on its descriptor
// (which the kernel may then reuse).
type acceptor struct {
	epfd int
	mu   sync.Mutex
	byFD map[int32]*tcpSocket
}

// tcpSocket is one non-blocking listening socket and what to do with
// each connection it accepts.
type tcpSocket struct {
	fd      int
	port    uint16
	handler tcpHandler
}

// tcpHandler serves one accepted connection (in its own goroutine). A
// listener is one; an interface rather than a func value, which would be
// one more allocation per listener.
type tcpHandler interface {
	handleTCP(*net.TCPConn)
}

// tcpHandlerFunc is a func as a tcpHandler.
type tcpHandlerFunc func(*net.TCPConn)

func (f tcpHandlerFunc) handleTCP(c *net.TCPConn) { f(c) }

var (
	sharedAcceptor     *acceptor
	sharedAcceptorErr  error
	sharedAcceptorOnce sync.Once
)

// theAcceptor is the process's acceptor, started at first use.
func theAcceptor() (*acceptor, error) {
	sharedAcceptorOnce.Do(func() {
		epfd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
		if err != nil {
			sharedAcceptorErr = fmt.Errorf("epoll_create1: %w", err)
			return
		}
		sharedAcceptor = &acceptor{epfd: epfd, byFD: map[int32]*tcpSocket{}}
		go sharedAcceptor.loop()
	})
	return sharedAcceptor, sharedAcceptorErr
}

// listenTCP opens a listening socket of addr's family only (an IPv6 one
// is IPV6_V6ONLY, so each family's proxier can bind the same port), with
// SO_REUSEADDR as Go's listeners, port 0 meaning any free port, and hands
// each accepted connection to h in a new goroutine.
func (a *acceptor) listenTCP(addr netip.AddrPort, h tcpHandler) (*tcpSocket, error) {
	domain := unix.AF_INET6
	var sa unix.Sockaddr = &unix.SockaddrInet6{Port: int(addr.Port()), Addr: addr.Addr().As16()}
	if addr.Addr().Is4() {
		domain = unix.AF_INET
		sa = &unix.SockaddrInet4{Port: int(addr.Port()), Addr: addr.Addr().As4()}
	}
	fd, err := unix.Socket(domain, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, unix.IPPROTO_TCP)
	if err != nil {
		return nil, os.NewSyscallError("socket", err)
	}
	fail := func(call string, err error) (*tcpSocket, error) {
		unix.Close(fd)
		return nil, &net.OpError{Op: "listen", Net: "tcp", Addr: net.TCPAddrFromAddrPort(addr), Err: os.NewSyscallError(call, err)}
	}
	if err := unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_REUSEADDR, 1); err != nil {
		return fail("setsockopt", err)
	}
	if domain == unix.AF_INET6 {
		if err := unix.SetsockoptInt(fd, unix.IPPROTO_IPV6, unix.IPV6_V6ONLY, 1); err != nil {
			return fail("setsockopt", err)
		}
	}
	if err := unix.Bind(fd, sa); err != nil {
		return fail("bind", err)
	}
	if err := unix.Listen(fd, listenBacklog()); err != nil {
		return fail("listen", err)
	}
	bound, err := unix.Getsockname(fd)
	if err != nil {
		return fail("getsockname", err)
	}
	s := &tcpSocket{fd: fd, handler: h}
	switch b := bound.(type) {
	case *unix.SockaddrInet4:
		s.port = uint16(b.Port)
	case *unix.SockaddrInet6:
		s.port = uint16(b.Port)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if err := unix.EpollCtl(a.epfd, unix.EPOLL_CTL_ADD, fd, &unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(fd)}); err != nil {
		return fail("epoll_ctl", err)
	}
	a.byFD[int32(fd)] = s
	return s, nil
}

// remove stops accepting on s and closes its socket; established
// connections keep running.
func (a *acceptor) remove(s *tcpSocket) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.byFD[int32(s.fd)] != s {
		return
	}
	delete(a.byFD, int32(s.fd))
	_ = unix.EpollCtl(a.epfd, unix.EPOLL_CTL_DEL, s.fd, nil)
	unix.Close(s.fd)
}

func (a *acceptor) loop() {
	events := make([]unix.EpollEvent, 64)
	for {
		n, err := unix.EpollWait(a.epfd, events, -1)
		if err != nil {
			if errors.Is(err, unix.EINTR) {
				continue
			}
			klog.ErrorS(err, "epoll_wait failed; the userspace proxy accepts no more connections")
			return
		}
		for _, ev := range events[:n] {
			if a.acceptAll(ev.Fd) {
				// Out of descriptors: the connections wait in the
				// backlog; try again shortly rather than spin.
				time.Sleep(50 * time.Millisecond)
			}
		}
	}
}

// acceptAll accepts every pending connection of the socket fd. It reports
// whether the process ran out of file descriptors.
func (a *acceptor) acceptAll(fd int32) (exhausted bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	s := a.byFD[fd]
	if s == nil {
		return false // removed since epoll_wait returned
	}
	for {
		nfd, _, err := unix.Accept4(s.fd, unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC)
		switch {
		case err == nil:
		case errors.Is(err, unix.EAGAIN), errors.Is(err, unix.EINTR):
			return false
		case errors.Is(err, unix.ECONNABORTED):
			continue
		case errors.Is(err, unix.EMFILE), errors.Is(err, unix.ENFILE):
			klog.ErrorS(err, "Accepting a connection failed", "port", s.port)
			return true
		default:
			klog.V(2).InfoS("Accepting a connection failed", "port", s.port, "err", err)
			return false
		}
		f := os.NewFile(uintptr(nfd), "")
		c, err := net.FileConn(f) // registers a duplicate with Go's poller
		f.Close()
		if err != nil {
			klog.V(2).InfoS("Accepted connection unusable", "port", s.port, "err", err)
			continue
		}
		go s.handler.handleTCP(c.(*net.TCPConn))
	}
}

// listenBacklog is the kernel's somaxconn, as Go's listeners use, read
// once per process (a full sync opens thousands of listeners; reading it
// for each took a third of the sync).
var listenBacklog = sync.OnceValue(readListenBacklog)

func readListenBacklog() int {
	b, err := os.ReadFile("/proc/sys/net/core/somaxconn")
	if err != nil {
		return unix.SOMAXCONN
	}
	var n int
	if _, err := fmt.Sscanf(string(b), "%d", &n); err != nil || n <= 0 {
		return unix.SOMAXCONN
	}
	return min(n, 1<<16-1)
}
