package bench

import (
	"net"
	"time"

	"github.com/vishvananda/netns"

	"github.com/svcplane/svcplane/internal/netnsutil"
)

// inNetns is netnsutil.Do.
func inNetns(ns netns.NsHandle, fn func() error) error { return netnsutil.Do(ns, fn) }

// newNetns is netnsutil.New.
func newNetns() (netns.NsHandle, error) { return netnsutil.New() }

// nsEndpoint opens sockets in one network namespace: a pod's (entered
// through a process of it), one the bench made, or (ns netns.None(),
// hereEndpoint) the calling thread's own.
type nsEndpoint struct {
	ns netns.NsHandle
}

func hereEndpoint() nsEndpoint { return nsEndpoint{ns: netns.None()} }

func (e nsEndpoint) run(fn func() error) error {
	if e.ns == netns.None() {
		return fn()
	}
	return inNetns(e.ns, fn)
}

func (e nsEndpoint) listen(addr string) (net.Listener, error) {
	var l net.Listener
	err := e.run(func() (err error) {
		l, err = net.Listen("tcp4", addr)
		return err
	})
	return l, err
}

func (e nsEndpoint) dial(addr string) (net.Conn, error) {
	c, _, err := e.dialTimed(addr)
	return c, err
}

// dialFrom connects from the local address (ip:port).
func (e nsEndpoint) dialFrom(local *net.TCPAddr, addr string) (net.Conn, error) {
	var c net.Conn
	err := e.run(func() (err error) {
		d := net.Dialer{LocalAddr: local, Timeout: 5 * time.Second}
		c, err = d.Dial("tcp4", addr)
		return err
	})
	return c, err
}

// dialTimed also returns how long the connect took (the handshake, not
// entering the namespace).
func (e nsEndpoint) dialTimed(addr string) (net.Conn, time.Duration, error) {
	var c net.Conn
	var took time.Duration
	err := e.run(func() (err error) {
		start := time.Now()
		c, err = net.DialTimeout("tcp4", addr, 5*time.Second)
		took = time.Since(start)
		return err
	})
	return c, took, err
}
