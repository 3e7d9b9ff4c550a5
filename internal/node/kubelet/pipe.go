package kubelet

import (
	"context"
	"net"
	"net/http"
	"sync"
)

// pipeListener is a net.Listener whose connections come from in-process
// dials: the kubelet API's WebSocket translators reach its own SPDY
// handlers through it (as the kubelet reaches its CRI streaming server),
// with no port anyone else could connect to.
type pipeListener struct {
	conns chan net.Conn
	done  chan struct{}
	once  sync.Once
}

func newPipeListener() *pipeListener {
	return &pipeListener{conns: make(chan net.Conn), done: make(chan struct{})}
}

func (l *pipeListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

func (l *pipeListener) Close() error {
	l.once.Do(func() { close(l.done) })
	return nil
}

func (l *pipeListener) Addr() net.Addr { return pipeAddr{} }

// dial connects to the listener whatever the address.
func (l *pipeListener) dial(ctx context.Context, _, _ string) (net.Conn, error) {
	client, server := net.Pipe()
	select {
	case l.conns <- server:
		return client, nil
	case <-l.done:
		return nil, net.ErrClosed
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// transport is an HTTP transport whose every connection is a pipe to l.
func (l *pipeListener) transport() *http.Transport {
	return &http.Transport{DialContext: l.dial, DisableKeepAlives: true}
}

type pipeAddr struct{}

func (pipeAddr) Network() string { return "pipe" }
func (pipeAddr) String() string  { return "kubelet-internal" }
