package dns

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"syscall"
	"time"

	mdns "github.com/miekg/dns"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"golang.org/x/sys/unix"
	"k8s.io/klog/v2"
)

// Server answers DNS questions: the cluster zone and its reverse names
// from the Resolver, the rest through the Forwarder (nil: REFUSED).
type Server struct {
	Resolver  *Resolver
	Forwarder *Forwarder
	Metrics   *Metrics
	// Ready reports whether the index has synced (the /ready endpoint;
	// questions are answered either way).
	Ready func() bool
	// Name is the "server" label of the metrics (dns://<addr>).
	Name string
}

// NewServer returns a server for r, forwarding to upstreams (none:
// refuse), with fresh metrics.
func NewServer(r *Resolver, upstreams []string, ready func() bool) *Server {
	s := &Server{Resolver: r, Metrics: NewMetrics(), Ready: ready, Name: "dns://:53"}
	if len(upstreams) > 0 {
		s.Forwarder = &Forwarder{Upstreams: upstreams, Observe: s.Metrics.observeForward}
	}
	return s
}

// Handle answers req as received over proto ("udp" or "tcp"); plugin is
// who answered, for the metrics ("kubernetes", "forward" or "").
func (s *Server) Handle(ctx context.Context, req *mdns.Msg, proto string) (resp *mdns.Msg, plugin string) {
	resp, plugin, _ = s.handle(ctx, req)
	return resp, plugin
}

// handle is Handle; local reports that the answer came from the index
// alone (no upstream was asked), so that the same question answers alike
// until the index changes.
func (s *Server) handle(ctx context.Context, req *mdns.Msg) (resp *mdns.Msg, plugin string, local bool) {
	opt := req.IsEdns0()
	switch {
	case len(req.Question) != 1:
		return s.fail(req, mdns.RcodeFormatError), "", true
	case req.Opcode != mdns.OpcodeQuery:
		return s.fail(req, mdns.RcodeNotImplemented), "", true
	case opt != nil && opt.Version() != 0:
		resp = s.fail(req, mdns.RcodeBadVers)
		resp.SetEdns0(mdns.DefaultMsgSize, false)
		return resp, "", true
	}
	q := req.Question[0]
	if q.Qclass != mdns.ClassINET && q.Qclass != mdns.ClassANY {
		return s.fail(req, mdns.RcodeRefused), "", true
	}
	if q.Qtype == mdns.TypeAXFR || q.Qtype == mdns.TypeIXFR {
		return s.fail(req, mdns.RcodeRefused), "kubernetes", true
	}
	a, ok := s.Resolver.ZoneAnswer(q.Name, q.Qtype)
	if !ok {
		a, ok = s.Resolver.ReverseAnswer(q.Name, q.Qtype)
	}
	if !ok {
		// With no upstreams the refusal is as local as an answer.
		return s.forward(ctx, req), "forward", s.Forwarder == nil
	}
	resp = new(mdns.Msg)
	resp.SetReply(req)
	resp.Authoritative, resp.RecursionAvailable, resp.Compress = true, true, true
	resp.Rcode, resp.Answer, resp.Ns, resp.Extra = a.Rcode, a.Answer, a.Ns, a.Extra
	if a.Chase != "" && s.Forwarder != nil {
		s.chase(ctx, resp, a.Chase, q.Qtype)
		return resp, "kubernetes", false
	}
	return resp, "kubernetes", true
}

// chase appends the upstream's records of target to resp (the answer to an
// ExternalName's CNAME); a failure leaves the CNAME alone.
func (s *Server) chase(ctx context.Context, resp *mdns.Msg, target string, qtype uint16) {
	q := new(mdns.Msg)
	q.SetQuestion(target, qtype)
	if up, err := s.Forwarder.Exchange(ctx, q); err == nil {
		resp.Answer = append(resp.Answer, up.Answer...)
	}
}

// forward sends req upstream and returns the answer (SERVFAIL when none
// answers, REFUSED with no upstreams).
func (s *Server) forward(ctx context.Context, req *mdns.Msg) *mdns.Msg {
	if s.Forwarder == nil {
		return s.fail(req, mdns.RcodeRefused)
	}
	up, err := s.Forwarder.Exchange(ctx, req)
	if err != nil {
		klog.V(2).InfoS("Forwarding failed", "name", req.Question[0].Name, "err", err)
		return s.fail(req, mdns.RcodeServerFailure)
	}
	up.Id = req.Id
	return up
}

func (s *Server) fail(req *mdns.Msg, rcode int) *mdns.Msg {
	resp := new(mdns.Msg)
	resp.SetRcode(req, rcode)
	resp.RecursionAvailable = true
	return resp
}

// ServeDNS is the miekg/dns handler (TCP; UDP is served by serveUDP):
// see serve.
func (s *Server) ServeDNS(w mdns.ResponseWriter, req *mdns.Msg) {
	proto, family := "udp", 1
	switch addr := w.RemoteAddr().(type) {
	case *net.TCPAddr:
		proto = "tcp"
		if addr.IP.To4() == nil {
			family = 2
		}
	case *net.UDPAddr:
		if addr.IP.To4() == nil {
			family = 2
		}
	}
	s.serve(w, req, proto, family, time.Now())
}

// served is what serve wrote, for the UDP answer cache.
type served struct {
	// buf is the packed answer; local: it came from the index alone and
	// no panic happened (the same question gets the same bytes until
	// the index changes).
	buf    []byte
	local  bool
	plugin string
	rcode  int
	reqLen int
}

// serve answers req (received over proto from an address of family 1 or
// 2 at start) through w: Handle, fit the answer to the client's buffer
// (UDP: 512 bytes or its EDNS0 size, the rest truncated with TC set),
// metrics (recorded before the answer leaves, so whoever got it sees it
// counted), and a recovered panic as SERVFAIL.
func (s *Server) serve(w mdns.ResponseWriter, req *mdns.Msg, proto string, family int, start time.Time) (out served) {
	resp := s.answer(req, proto, &out)
	out.reqLen = req.Len()
	if len(req.Question) > 0 {
		s.Metrics.observe(s.Name, proto, family, req, resp, out.reqLen, len(out.buf), out.plugin, time.Since(start))
	}
	_, _ = w.Write(out.buf)
	return out
}

// answer is serve's answer to req, packed into out.buf.
func (s *Server) answer(req *mdns.Msg, proto string, out *served) (resp *mdns.Msg) {
	defer func() {
		if r := recover(); r != nil {
			s.Metrics.panics.Inc()
			klog.ErrorS(fmt.Errorf("%v", r), "DNS handler panicked", "question", req.Question)
			resp = s.fail(req, mdns.RcodeServerFailure)
			out.buf, _ = resp.Pack()
			out.rcode, out.local = resp.Rcode, false
		}
	}()
	resp, out.plugin, out.local = s.handle(context.Background(), req)
	size := mdns.MaxMsgSize
	if proto == "udp" {
		size = mdns.MinMsgSize
		if opt := req.IsEdns0(); opt != nil {
			size = max(int(opt.UDPSize()), mdns.MinMsgSize)
		}
	}
	if opt := req.IsEdns0(); opt != nil && resp.IsEdns0() == nil {
		resp.SetEdns0(uint16(min(size, int(mdns.DefaultMsgSize))), false)
	}
	resp.Truncate(size)
	buf, err := resp.Pack()
	if err != nil {
		klog.V(2).InfoS("Packing a DNS answer failed", "question", req.Question, "err", err)
		resp = s.fail(req, mdns.RcodeServerFailure)
		buf, _ = resp.Pack()
		out.local = false
	}
	out.buf, out.rcode = buf, resp.Rcode
	return resp
}

// Listen binds addr: n UDP sockets sharing the port (SO_REUSEPORT: the
// kernel spreads clients over them, one reader each, where one socket's
// reader caps the rate) and a TCP listener. A taken port fails here.
func Listen(addr string, n int) ([]net.PacketConn, net.Listener, error) {
	// With port 0 the UDP sockets pick a free port, which TCP may find
	// taken by another process: then pick another (a few times).
	anyPort := addr == "" || strings.HasSuffix(addr, ":0")
	for attempt := 0; ; attempt++ {
		pcs, l, err := listenOnce(addr, n)
		if err == nil || !anyPort || attempt == 9 || !errors.Is(err, syscall.EADDRINUSE) {
			return pcs, l, err
		}
	}
}

func listenOnce(addr string, n int) ([]net.PacketConn, net.Listener, error) {
	lc := net.ListenConfig{}
	if n > 1 {
		lc.Control = func(_, _ string, c syscall.RawConn) error {
			var serr error
			err := c.Control(func(fd uintptr) { serr = unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_REUSEPORT, 1) })
			return errors.Join(err, serr)
		}
	}
	var pcs []net.PacketConn
	closeAll := func() {
		for _, pc := range pcs {
			pc.Close()
		}
	}
	for range max(n, 1) {
		pc, err := lc.ListenPacket(context.Background(), "udp", addr)
		if err != nil {
			closeAll()
			return nil, nil, err
		}
		pcs = append(pcs, pc)
		if addr == "" || strings.HasSuffix(addr, ":0") {
			addr = pc.LocalAddr().String() // the others share the port chosen
		}
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		closeAll()
		return nil, nil, err
	}
	return pcs, l, nil
}

// Serve serves on the given sockets until ctx ends: each UDP socket with
// a udpReader, TCP with miekg/dns's server.
func (s *Server) Serve(ctx context.Context, pcs []net.PacketConn, l net.Listener) error {
	var readers []*udpReader
	for _, pc := range pcs {
		u, ok := pc.(*net.UDPConn)
		if !ok {
			return fmt.Errorf("cluster DNS: %T is not a UDP socket", pc)
		}
		readers = append(readers, newUDPReader(s, u))
	}
	tcp := &mdns.Server{Listener: l, Handler: s}
	errs := make(chan error, len(readers)+1)
	var wg sync.WaitGroup
	for _, r := range readers {
		wg.Add(1)
		go func() { defer wg.Done(); errs <- r.run() }()
	}
	go func() { errs <- tcp.ActivateAndServe() }()
	stop := func() {
		for _, pc := range pcs {
			pc.Close()
		}
		wg.Wait() // the readers, and the questions they handed off
	}
	select {
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = tcp.ShutdownContext(sctx)
		stop()
		return nil
	case err := <-errs:
		_ = tcp.Shutdown()
		stop()
		if err == nil {
			err = errors.New("cluster DNS: a listener stopped")
		}
		return err
	}
}

// HTTPHandler serves /health (CoreDNS's health plugin: 200 "OK" while
// the process runs), /ready (the ready plugin: 200 "OK" once synced, else
// 503 naming the plugin not ready) and /metrics.
func (s *Server) HTTPHandler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/health", func(w http.ResponseWriter, _ *http.Request) {
		start := time.Now()
		_, _ = w.Write([]byte("OK"))
		s.Metrics.healthDur.Observe(time.Since(start).Seconds())
	})
	mux.HandleFunc("/ready", func(w http.ResponseWriter, _ *http.Request) {
		if s.Ready != nil && !s.Ready() {
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = w.Write([]byte("kubernetes"))
			return
		}
		_, _ = w.Write([]byte("OK"))
	})
	mux.Handle("/metrics", promhttp.HandlerFor(s.Metrics.Registry, promhttp.HandlerOpts{}))
	return mux
}

// ServeHTTP runs HTTPHandler on each distinct non-empty address until ctx
// ends; a bind error is returned at once.
func (s *Server) ServeHTTP(ctx context.Context, addrs ...string) error {
	seen := map[string]bool{}
	var servers []*http.Server
	var wg sync.WaitGroup
	for _, a := range addrs {
		if a == "" || seen[a] {
			continue
		}
		seen[a] = true
		l, err := net.Listen("tcp", a)
		if err != nil {
			for _, srv := range servers {
				srv.Close()
			}
			return err
		}
		srv := &http.Server{Handler: s.HTTPHandler(), ReadHeaderTimeout: 5 * time.Second}
		servers = append(servers, srv)
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := srv.Serve(l); err != nil && !errors.Is(err, http.ErrServerClosed) {
				klog.ErrorS(err, "DNS HTTP endpoint stopped", "address", a)
			}
		}()
	}
	go func() {
		<-ctx.Done()
		for _, srv := range servers {
			srv.Close()
		}
	}()
	return nil
}

// serverName is the metrics' server label for a listen address.
func serverName(addr string) string {
	if strings.HasPrefix(addr, "0.0.0.0:") || strings.HasPrefix(addr, "[::]:") {
		addr = addr[strings.LastIndex(addr, ":"):]
	}
	return "dns://" + addr
}
