package dns

import (
	"errors"
	"net"
	"net/netip"
	"sync"
	"time"

	mdns "github.com/miekg/dns"
	"k8s.io/klog/v2"
)

// udpReader serves one UDP socket: a single loop reads each question and
// answers a known one at once from the socket's answerCache (no goroutine,
// no parsing, no allocation: the packed answer with the asker's ID); any
// other question goes to its own goroutine, which answers as miekg/dns's
// server would (its accept rules, FORMERR and NOTIMP rejections, then
// serve) and caches the answer when the index alone gave it.
type udpReader struct {
	s     *Server
	pc    *net.UDPConn
	cache *answerCache
	// pktinfo: the socket is bound to a wildcard address, so each reply
	// goes out from the address its question was sent to.
	pktinfo bool
	misses  sync.WaitGroup

	buf, key, out, oob, replyOOB []byte
}

// udpBufSize holds any UDP datagram.
const udpBufSize = 65535

func newUDPReader(s *Server, pc *net.UDPConn) *udpReader {
	r := &udpReader{s: s, pc: pc, cache: newAnswerCache(),
		key: make([]byte, 0, 512), out: make([]byte, 0, 512),
		oob: make([]byte, oobSize), replyOOB: make([]byte, 0, oobSize)}
	if a, ok := pc.LocalAddr().(*net.UDPAddr); ok && a.IP.IsUnspecified() {
		if err := enablePktinfo(pc); err != nil {
			klog.InfoS("Replies on a wildcard-bound DNS socket go out from the kernel's choice of source address", "err", err)
		} else {
			r.pktinfo = true
		}
	}
	return r
}

// run serves until the socket is closed (nil) or fails: in batches where
// the platform has them (udp_linux.go), else one datagram at a time.
func (r *udpReader) run() error {
	defer r.misses.Wait()
	if b := newBatchIO(r); b != nil {
		return b.run()
	}
	r.buf = make([]byte, udpBufSize)
	for {
		oob := r.oob[:0]
		if r.pktinfo {
			oob = r.oob
		}
		n, oobn, _, peer, err := r.pc.ReadMsgUDPAddrPort(r.buf, oob)
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return nil
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			return err
		}
		if n < 12 { // shorter than a header: not DNS, no answer (as miekg/dns)
			continue
		}
		r.answer(r.buf[:n], oob[:oobn], peer)
	}
}

// answer answers pkt (at least a header long) from peer, sent with
// control messages oob: from the cache, else in a goroutine of its own.
func (r *udpReader) answer(pkt, oob []byte, peer netip.AddrPort) {
	start := time.Now()
	family := familyOf(peer)
	reply := r.replyOOB[:0]
	if r.pktinfo {
		reply = appendReplyOOB(reply, oob)
	}
	gen := r.s.Resolver.Index.Generation()
	if a := r.cached(pkt, family, gen); a != nil {
		r.out = append(r.out[:0], a.buf...)
		r.out[0], r.out[1] = pkt[0], pkt[1]
		r.s.Metrics.observeAnswer(a.series, a.responses, a.reqLen, len(a.buf), time.Since(start))
		_, _, _ = r.pc.WriteMsgUDPAddrPort(r.out, reply, peer)
		return
	}
	r.miss(pkt, reply, peer, family, gen, start)
}

// familyOf is the metrics' family of an asker: 1 (IPv4) or 2 (IPv6).
func familyOf(peer netip.AddrPort) byte {
	if a := peer.Addr(); !a.Is4() && !a.Is4In6() {
		return 2
	}
	return 1
}

// cached returns the cache's answer to pkt from an asker of family at
// index generation gen, or nil. It leaves the cache key in r.key.
func (r *udpReader) cached(pkt []byte, family byte, gen uint64) *packedAnswer {
	r.key = append(append(r.key[:0], family), pkt[2:]...)
	return r.cache.get(r.key, gen)
}

// miss answers pkt in a goroutine of its own (after cached left its key
// in r.key), replying with control messages reply.
func (r *udpReader) miss(pkt, reply []byte, peer netip.AddrPort, family byte, gen uint64, start time.Time) {
	m := &udpMiss{r: r, pkt: append([]byte(nil), pkt...), key: append([]byte(nil), r.key...),
		peer: peer, oob: append([]byte(nil), reply...), family: int(family), gen: gen, start: start}
	r.misses.Add(1)
	go m.serve()
}

// udpMiss is one question the cache could not answer, and its
// mdns.ResponseWriter.
type udpMiss struct {
	r             *udpReader
	pkt, key, oob []byte
	peer          netip.AddrPort
	family        int
	gen           uint64
	start         time.Time
}

func (m *udpMiss) serve() {
	defer m.r.misses.Done()
	if len(m.pkt) < 12 {
		return
	}
	h := mdns.Header{Id: be16(m.pkt[0:]), Bits: be16(m.pkt[2:]), Qdcount: be16(m.pkt[4:]),
		Ancount: be16(m.pkt[6:]), Nscount: be16(m.pkt[8:]), Arcount: be16(m.pkt[10:])}
	req := new(mdns.Msg)
	switch action := mdns.DefaultMsgAcceptFunc(h); action {
	case mdns.MsgIgnore:
		return
	case mdns.MsgReject, mdns.MsgRejectNotImplemented:
		// The header alone: the sections are not read.
		hdr := append([]byte(nil), m.pkt[:12]...)
		clear(hdr[4:])
		_ = req.Unpack(hdr)
		m.reject(req, action == mdns.MsgRejectNotImplemented)
		return
	}
	if err := req.Unpack(m.pkt); err != nil {
		m.reject(req, false) // the header and what parsed before the error
		return
	}
	out := m.r.s.serve(m, req, "udp", m.family, m.start)
	if !out.local || len(req.Question) == 0 {
		return
	}
	met := m.r.s.Metrics
	m.r.cache.put(m.key, m.gen, &packedAnswer{buf: out.buf, reqLen: out.reqLen,
		series:    met.requestSeries(m.r.s.Name, "udp", m.family, req.Question[0].Qtype),
		responses: met.responseSeries(m.r.s.Name, out.rcode, out.plugin)})
}

// reject answers FORMERR (NOTIMP with notImpl) as miekg/dns's server does
// for a question its accept rules refuse or that does not parse.
func (m *udpMiss) reject(req *mdns.Msg, notImpl bool) {
	opcode := req.Opcode
	req.SetRcodeFormatError(req)
	req.Zero = false
	if notImpl {
		req.Opcode, req.Rcode = opcode, mdns.RcodeNotImplemented
	}
	req.Answer, req.Ns, req.Extra = nil, nil, nil
	_ = m.WriteMsg(req)
}

func be16(b []byte) uint16 { return uint16(b[0])<<8 | uint16(b[1]) }

func (m *udpMiss) LocalAddr() net.Addr  { return m.r.pc.LocalAddr() }
func (m *udpMiss) RemoteAddr() net.Addr { return net.UDPAddrFromAddrPort(m.peer) }
func (m *udpMiss) WriteMsg(msg *mdns.Msg) error {
	b, err := msg.Pack()
	if err != nil {
		return err
	}
	_, err = m.Write(b)
	return err
}
func (m *udpMiss) Write(b []byte) (int, error) {
	n, _, err := m.r.pc.WriteMsgUDPAddrPort(b, m.oob, m.peer)
	return n, err
}
func (m *udpMiss) Close() error        { return nil }
func (m *udpMiss) TsigStatus() error   { return nil }
func (m *udpMiss) TsigTimersOnly(bool) {}
func (m *udpMiss) Hijack()             {}
