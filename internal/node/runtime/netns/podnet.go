package netns

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/vishvananda/netns"
)

// listen opens a listener in the pod's namespace.
func (p *pod) listen(network, addr string) (net.Listener, error) {
	var l net.Listener
	err := inNS(p.ns, func() (err error) {
		l, err = net.Listen(network, addr)
		return err
	})
	return l, err
}

// listenPacket opens a datagram socket in the pod's namespace.
func (p *pod) listenPacket(network, addr string) (net.PacketConn, error) {
	var c net.PacketConn
	err := inNS(p.ns, func() (err error) {
		c, err = net.ListenPacket(network, addr)
		return err
	})
	return c, err
}

// dialIn connects from namespace ns.
func dialIn(ctx context.Context, ns netns.NsHandle, network, addr string) (net.Conn, error) {
	var c net.Conn
	err := inNS(ns, func() (err error) {
		d := net.Dialer{Timeout: 5 * time.Second}
		c, err = d.DialContext(ctx, network, addr)
		return err
	})
	return c, err
}

// httpClient is an HTTP client whose connections start in ns.
func httpClient(ns netns.NsHandle, timeout time.Duration) *http.Client {
	return &http.Client{Timeout: timeout, Transport: &http.Transport{DisableKeepAlives: true,
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			return dialIn(ctx, ns, network, addr)
		}},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// httpGet is agnhost's dialHTTP from the pod: the body of a GET.
func (p *pod) httpGet(ctx context.Context, url string) (string, error) {
	resp, err := httpClient(p.ns, 5*time.Second).Get(url)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return string(b), err
}

// udpRequest is agnhost's dialUDP from the pod.
func (p *pod) udpRequest(ctx context.Context, addr, request string) (string, error) {
	c, err := dialIn(ctx, p.ns, "udp", addr)
	if err != nil {
		return "", fmt.Errorf("udp dial failed. err:%v", err)
	}
	defer c.Close()
	if _, err := c.Write([]byte(request)); err != nil {
		return "", fmt.Errorf("udp connection write failed. err:%v", err)
	}
	buf := make([]byte, 2048)
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	n, err := c.Read(buf)
	if err != nil || n == 0 {
		return "", fmt.Errorf("reading from udp connection failed. err:'%v'", err)
	}
	return string(buf[:n]), nil
}
