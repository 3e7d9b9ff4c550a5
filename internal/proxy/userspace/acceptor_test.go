package userspace

import (
	"bufio"
	"io"
	"net"
	"net/netip"
	"runtime"
	"testing"
)

// TestAcceptorServesManyListenersInOneGoroutine: 300 listeners add no
// goroutine per listener; each accepts and hands its connections over;
// a removed one refuses new connections while an established one keeps
// working; its port can be bound again.
func TestAcceptorServesManyListenersInOneGoroutine(t *testing.T) {
	a, err := theAcceptor()
	if err != nil {
		t.Fatal(err)
	}
	echo := tcpHandlerFunc(func(c *net.TCPConn) {
		defer c.Close()
		line, err := bufio.NewReader(c).ReadString('\n')
		if err == nil {
			_, _ = io.WriteString(c, "echo "+line)
		}
	})
	before := runtime.NumGoroutine()
	var socks []*tcpSocket
	for range 300 {
		s, err := a.listenTCP(netip.MustParseAddrPort("127.0.0.1:0"), echo)
		if err != nil {
			t.Fatal(err)
		}
		socks = append(socks, s)
	}
	defer func() {
		for _, s := range socks {
			a.remove(s)
		}
	}()
	if g := runtime.NumGoroutine(); g > before+5 {
		t.Errorf("%d goroutines after opening 300 listeners, %d before", g, before)
	}
	ask := func(port uint16) (string, error) {
		c, err := net.Dial("tcp", netip.AddrPortFrom(netip.MustParseAddr("127.0.0.1"), port).String())
		if err != nil {
			return "", err
		}
		defer c.Close()
		if _, err := io.WriteString(c, "hi\n"); err != nil {
			return "", err
		}
		return bufio.NewReader(c).ReadString('\n')
	}
	for _, i := range []int{0, 150, 299} {
		if got, err := ask(socks[i].port); err != nil || got != "echo hi\n" {
			t.Fatalf("listener %d: %q, %v", i, got, err)
		}
	}

	// An established connection outlives its listener.
	held := make(chan *net.TCPConn, 1)
	s, err := a.listenTCP(netip.MustParseAddrPort("127.0.0.1:0"), tcpHandlerFunc(func(c *net.TCPConn) { held <- c }))
	if err != nil {
		t.Fatal(err)
	}
	c, err := net.Dial("tcp", netip.AddrPortFrom(netip.MustParseAddr("127.0.0.1"), s.port).String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	server := <-held
	a.remove(s)
	if _, err := net.Dial("tcp", netip.AddrPortFrom(netip.MustParseAddr("127.0.0.1"), s.port).String()); err == nil {
		t.Error("a removed listener still accepts")
	}
	if _, err := io.WriteString(server, "still here\n"); err != nil {
		t.Fatal(err)
	}
	if got, err := bufio.NewReader(c).ReadString('\n'); err != nil || got != "still here\n" {
		t.Errorf("established connection after remove: %q, %v", got, err)
	}
	server.Close()
	again, err := a.listenTCP(netip.AddrPortFrom(netip.MustParseAddr("127.0.0.1"), s.port), echo)
	if err != nil {
		t.Fatalf("binding a removed listener's port again: %v", err)
	}
	a.remove(again)
}

// TestAcceptorSocketsOfOneFamily: an IPv6 listener is IPV6_V6ONLY, so an
// IPv4 one can hold the same port (each family's proxier binds the
// NodePort).
func TestAcceptorSocketsOfOneFamily(t *testing.T) {
	a, err := theAcceptor()
	if err != nil {
		t.Fatal(err)
	}
	v4, err := a.listenTCP(netip.MustParseAddrPort("0.0.0.0:0"), tcpHandlerFunc(func(c *net.TCPConn) { c.Close() }))
	if err != nil {
		t.Fatal(err)
	}
	defer a.remove(v4)
	v6, err := a.listenTCP(netip.AddrPortFrom(netip.IPv6Unspecified(), v4.port), tcpHandlerFunc(func(c *net.TCPConn) { c.Close() }))
	if err != nil {
		t.Fatalf("IPv6 listener on the IPv4 one's port: %v", err)
	}
	a.remove(v6)
}
