package dns

import (
	"encoding/binary"
	"errors"
	"net"
	"net/netip"
	"os"
	"strconv"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// udpBatch is how many datagrams one recvmmsg takes and one sendmmsg
// answers: under load several questions wait in the socket, and each
// system call costs as much as the work of a cached answer.
const udpBatch = 16

// batchBufSize is a datagram's room in a batch. miekg/dns's server read
// 512 bytes; a longer datagram arrives cut here (MSG_TRUNC) and is
// answered as what arrived (FORMERR where that does not parse).
const batchBufSize = 4096

// mmsghdr is struct mmsghdr: a msghdr and the length the kernel moved.
type mmsghdr struct {
	hdr unix.Msghdr
	n   uint32
}

// batchIO is a udpReader's batches: the datagrams read with one recvmmsg
// (their buffers, sender addresses and control messages) and the cached
// answers sent with one sendmmsg, to each sender's address as received.
// Questions not in the cache go to udpReader.miss as in the one-at-a-time
// loop.
type batchIO struct {
	r  *udpReader
	rc syscall.RawConn

	in    [udpBatch]mmsghdr
	inIov [udpBatch]unix.Iovec
	bufs  [udpBatch][batchBufSize]byte
	names [udpBatch]unix.RawSockaddrInet6 // room for either family
	oobs  [udpBatch][128]byte

	out      [udpBatch]mmsghdr
	outIov   [udpBatch]unix.Iovec
	outBufs  [udpBatch][]byte
	outOOBs  [udpBatch][]byte
	answered [udpBatch]*packedAnswer

	// The calls handed to the RawConn (made once: a closure per call
	// would allocate) and their results.
	recv, send func(fd uintptr) bool
	got, sent  int
	nOut       int
	errno      syscall.Errno
}

// newBatchIO prepares r's batches (nil where the socket has no raw
// connection).
func newBatchIO(r *udpReader) *batchIO {
	rc, err := r.pc.SyscallConn()
	if err != nil {
		return nil
	}
	b := &batchIO{r: r, rc: rc}
	for i := range udpBatch {
		b.inIov[i].Base = &b.bufs[i][0]
		b.inIov[i].SetLen(batchBufSize)
		h := &b.in[i].hdr
		h.Iov = &b.inIov[i]
		h.SetIovlen(1)
		h.Name = (*byte)(unsafe.Pointer(&b.names[i]))
		if r.pktinfo {
			h.Control = &b.oobs[i][0]
		}
		b.out[i].hdr.Iov = &b.outIov[i]
		b.out[i].hdr.SetIovlen(1)
		b.outBufs[i] = make([]byte, 0, 512)
		b.outOOBs[i] = make([]byte, 0, len(b.oobs[i]))
	}
	b.recv = func(fd uintptr) bool {
		n, _, e := unix.Syscall6(unix.SYS_RECVMMSG, fd, uintptr(unsafe.Pointer(&b.in[0])), udpBatch, unix.MSG_DONTWAIT, 0, 0)
		if e == unix.EAGAIN || e == unix.EINTR {
			return false // wait until readable
		}
		b.got, b.errno = int(n), e
		return true
	}
	b.send = func(fd uintptr) bool {
		n, _, e := unix.Syscall6(unix.SYS_SENDMMSG, fd, uintptr(unsafe.Pointer(&b.out[b.sent])), uintptr(b.nOut-b.sent), unix.MSG_DONTWAIT, 0, 0)
		switch {
		case e == unix.EAGAIN || e == unix.EINTR:
			return false // wait until writable
		case e != 0:
			b.sent++ // the first one failed: dropped, as by a failed sendmsg
		default:
			b.sent += int(n)
		}
		return b.sent >= b.nOut
	}
	return b
}

// run serves until the socket is closed (nil) or fails.
func (b *batchIO) run() error {
	r := b.r
	for {
		for i := range udpBatch { // what the kernel wrote back
			h := &b.in[i].hdr
			h.Namelen = uint32(unsafe.Sizeof(b.names[i]))
			h.Flags = 0
			if r.pktinfo {
				h.SetControllen(len(b.oobs[i]))
			}
		}
		if err := b.rc.Read(b.recv); err != nil {
			if errors.Is(err, net.ErrClosed) {
				return nil
			}
			return err
		}
		switch b.errno {
		case 0:
		case unix.ECONNREFUSED, unix.EHOSTUNREACH, unix.ENETUNREACH, unix.ENOBUFS, unix.ENOMEM:
			continue // a past send's ICMP error, or a passing shortage
		default:
			return os.NewSyscallError("recvmmsg", b.errno)
		}
		start := time.Now()
		gen := r.s.Resolver.Index.Generation()
		b.nOut = 0
		for i := range b.got {
			n := int(b.in[i].n)
			if n < 12 { // shorter than a header: not DNS, no answer
				continue
			}
			pkt := b.bufs[i][:n]
			peer := sockaddrAddrPort(&b.names[i])
			family := familyOf(peer)
			reply := b.outOOBs[b.nOut][:0]
			if r.pktinfo {
				reply = appendReplyOOB(reply, b.oobs[i][:b.in[i].hdr.Controllen])
			}
			a := r.cached(pkt, family, gen)
			if a == nil {
				r.miss(pkt, reply, peer, family, gen, start)
				continue
			}
			o := b.nOut
			b.outBufs[o] = append(b.outBufs[o][:0], a.buf...)
			b.outBufs[o][0], b.outBufs[o][1] = pkt[0], pkt[1]
			b.outOOBs[o] = reply
			b.answered[o] = a
			h := &b.out[o].hdr
			b.outIov[o].Base = &b.outBufs[o][0]
			b.outIov[o].SetLen(len(b.outBufs[o]))
			h.Name, h.Namelen = b.in[i].hdr.Name, b.in[i].hdr.Namelen
			h.Control = nil
			h.SetControllen(0)
			if len(reply) > 0 {
				h.Control = &b.outOOBs[o][0]
				h.SetControllen(len(reply))
			}
			b.nOut++
		}
		if b.nOut == 0 {
			continue
		}
		d := time.Since(start) // counted before the answers leave, as serve does
		for _, a := range b.answered[:b.nOut] {
			r.s.Metrics.observeAnswer(a.series, a.responses, a.reqLen, len(a.buf), d)
		}
		b.sent = 0
		if err := b.rc.Write(b.send); err != nil {
			if errors.Is(err, net.ErrClosed) {
				return nil
			}
			return err
		}
	}
}

// sockaddrAddrPort is the address in a received sockaddr (IPv4 or IPv6,
// an IPv6 scope as the zone).
func sockaddrAddrPort(sa *unix.RawSockaddrInet6) netip.AddrPort {
	port := binary.BigEndian.Uint16((*[2]byte)(unsafe.Pointer(&sa.Port))[:])
	if sa.Family == unix.AF_INET {
		sa4 := (*unix.RawSockaddrInet4)(unsafe.Pointer(sa))
		return netip.AddrPortFrom(netip.AddrFrom4(sa4.Addr), port)
	}
	a := netip.AddrFrom16(sa.Addr)
	if sa.Scope_id != 0 {
		a = a.WithZone(strconv.FormatUint(uint64(sa.Scope_id), 10))
	}
	return netip.AddrPortFrom(a, port)
}
