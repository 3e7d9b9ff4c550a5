package bench

import (
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"time"
)

// The traffic bench's servers and clients: a bulk TCP sink and a
// request/response echo server on listeners opened in the server's
// namespace, and clients dialling from the client's (nsEndpoint). All
// run in the bench process; the kernel carries the bytes between the
// namespaces.

const (
	bulkWrite   = 128 << 10 // bytes a client write, a sink read
	requestSize = 64        // bytes of a request and of its response
)

// sink reads every connection to EOF and reports what it saw.
type sink struct {
	l       net.Listener
	results chan flowResult
}

func startSink(l net.Listener) *sink {
	s := &sink{l: l, results: make(chan flowResult, 64)}
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go s.serve(c)
		}
	}()
	return s
}

func (s *sink) serve(c net.Conn) {
	defer c.Close()
	r := flowResult{From: c.RemoteAddr().String()}
	buf := make([]byte, bulkWrite)
	for {
		n, err := c.Read(buf)
		if n > 0 {
			now := time.Now()
			if r.Bytes == 0 {
				r.First = now
			}
			r.Bytes += int64(n)
			r.Last = now
		}
		if err != nil {
			break
		}
	}
	s.results <- r
}

// serveEcho answers every request with its bytes until the client
// closes.
func serveEcho(l net.Listener) {
	for {
		c, err := l.Accept()
		if err != nil {
			return
		}
		go func() {
			defer c.Close()
			buf := make([]byte, requestSize)
			for {
				if _, err := io.ReadFull(c, buf); err != nil {
					return
				}
				if _, err := c.Write(buf); err != nil {
					return
				}
			}
		}()
	}
}

// throughput sends bulk TCP from client to addr over streams connections
// for d and returns what the sink received: bytes over the span from the
// first to the last byte, and the sources it saw.
func throughput(client nsEndpoint, s *sink, addr string, streams int, d time.Duration) ([]flowResult, error) {
	errs := make(chan error, streams)
	var wg sync.WaitGroup
	for i := 0; i < streams; i++ {
		c, err := client.dial(addr)
		if err != nil {
			return nil, fmt.Errorf("dial %s: %w", addr, err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer c.Close()
			buf := make([]byte, bulkWrite)
			deadline := time.Now().Add(d)
			_ = c.SetWriteDeadline(deadline.Add(10 * time.Second))
			for time.Now().Before(deadline) {
				if _, err := c.Write(buf); err != nil {
					errs <- fmt.Errorf("write to %s: %w", addr, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return nil, err
	}
	flows := make([]flowResult, 0, streams)
	timeout := time.After(30 * time.Second)
	for len(flows) < streams {
		select {
		case f := <-s.results:
			flows = append(flows, f)
		case <-timeout:
			return nil, fmt.Errorf("the sink saw %d of %d connections to %s end", len(flows), streams, addr)
		}
	}
	return flows, nil
}

// rrMode is how requests get their connection.
type rrMode int

const (
	// keptAlive: one connection per target, reused by every request.
	keptAlive rrMode = iota
	// newConnPerRequest: connect, request, response, close; the time
	// includes the handshake.
	newConnPerRequest
)

func (m rrMode) String() string {
	if m == keptAlive {
		return "kept-alive connection"
	}
	return "new connection per request"
}

// rrWarmup requests per target are sent first and not counted.
const rrWarmup = 200

// rrResult is what requestResponse saw of one target.
type rrResult struct {
	RTTs []time.Duration
	// ConnectFailures are new connections that got no answer to their
	// SYNs within the dial timeout (newConnPerRequest only; counted,
	// not timed).
	ConnectFailures int
}

// maxConnectFailures ends a new-connection run that fails this often.
const maxConnectFailures = 10

// requestResponse sends one 64-byte request at a time (closed loop) from
// client, alternating between the targets so that each sees the same
// machine noise, for d or until each target has maxPerTarget answers.
// Any failure ends it, except a new connection that times out, which is
// counted (up to maxConnectFailures).
func requestResponse(client nsEndpoint, targets []string, mode rrMode, d time.Duration, maxPerTarget int) ([]rrResult, error) {
	conns := make([]net.Conn, len(targets))
	if mode == keptAlive {
		for i, a := range targets {
			c, err := client.dial(a)
			if err != nil {
				return nil, fmt.Errorf("dial %s: %w", a, err)
			}
			defer c.Close()
			conns[i] = c
		}
	}
	res := make([]rrResult, len(targets))
	failures := 0
	req, resp := make([]byte, requestSize), make([]byte, requestSize)
	var end time.Time
	for n := 0; ; n++ {
		round, ti := n/len(targets), n%len(targets)
		if round == rrWarmup && ti == 0 {
			end = time.Now().Add(d)
		}
		if round > rrWarmup && ti == 0 && (time.Now().After(end) || len(res[0].RTTs) >= maxPerTarget) {
			break
		}
		t, err := oneRequest(client, targets[ti], conns[ti], req, resp)
		var ne net.Error
		if err != nil && mode == newConnPerRequest && errors.As(err, &ne) && ne.Timeout() && strings.HasPrefix(err.Error(), "dial ") {
			res[ti].ConnectFailures++
			if failures++; failures < maxConnectFailures {
				continue
			}
		}
		if err != nil {
			return nil, err
		}
		if round >= rrWarmup {
			res[ti].RTTs = append(res[ti].RTTs, t)
		}
	}
	return res, nil
}

// oneRequest times one round trip on c, or on a new connection to addr
// (handshake included) when c is nil.
func oneRequest(client nsEndpoint, addr string, c net.Conn, req, resp []byte) (time.Duration, error) {
	var handshake time.Duration
	if c == nil {
		var err error
		if c, handshake, err = client.dialTimed(addr); err != nil {
			return 0, fmt.Errorf("dial %s: %w", addr, err)
		}
		defer c.Close()
	}
	start := time.Now()
	if _, err := c.Write(req); err != nil {
		return 0, fmt.Errorf("request to %s: %w", addr, err)
	}
	if _, err := io.ReadFull(c, resp); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return 0, fmt.Errorf("response from %s: %w", addr, err)
	}
	return handshake + time.Since(start), nil
}
