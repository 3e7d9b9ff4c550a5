package dns

import (
	"errors"
	"net"
	"unsafe"

	"golang.org/x/sys/unix"
)

// oobSize holds the larger of the IPv4 and IPv6 packet-info control
// messages.
var oobSize = unix.CmsgSpace(unix.SizeofInet6Pktinfo) + unix.CmsgSpace(unix.SizeofInet4Pktinfo)

// enablePktinfo asks the kernel to tell each datagram's destination
// address (IPv4 and, on an IPv6 socket, IPv6; one is enough).
func enablePktinfo(pc *net.UDPConn) error {
	rc, err := pc.SyscallConn()
	if err != nil {
		return err
	}
	var err4, err6 error
	if err := rc.Control(func(fd uintptr) {
		err4 = unix.SetsockoptInt(int(fd), unix.IPPROTO_IP, unix.IP_PKTINFO, 1)
		err6 = unix.SetsockoptInt(int(fd), unix.IPPROTO_IPV6, unix.IPV6_RECVPKTINFO, 1)
	}); err != nil {
		return err
	}
	if err4 != nil && err6 != nil {
		return errors.Join(err4, err6)
	}
	return nil
}

// appendReplyOOB appends to dst the control message that sends a reply
// from the address a datagram with control messages oob was sent to: its
// packet info with that address as the source and no interface (the
// route picks it), as miekg/dns's server does. Nothing without one.
func appendReplyOOB(dst, oob []byte) []byte {
	for len(oob) >= unix.SizeofCmsghdr {
		h := (*unix.Cmsghdr)(unsafe.Pointer(&oob[0]))
		l := int(h.Len)
		if l < unix.SizeofCmsghdr || l > len(oob) {
			return dst
		}
		data := oob[unix.CmsgLen(0):l]
		switch {
		case h.Level == unix.IPPROTO_IPV6 && h.Type == unix.IPV6_PKTINFO && len(data) >= unix.SizeofInet6Pktinfo:
			in := (*unix.Inet6Pktinfo)(unsafe.Pointer(&data[0]))
			return appendCmsg(dst, unix.IPPROTO_IPV6, unix.IPV6_PKTINFO, unix.SizeofInet6Pktinfo, func(b []byte) {
				*(*unix.Inet6Pktinfo)(unsafe.Pointer(&b[0])) = unix.Inet6Pktinfo{Addr: in.Addr}
			})
		case h.Level == unix.IPPROTO_IP && h.Type == unix.IP_PKTINFO && len(data) >= unix.SizeofInet4Pktinfo:
			in := (*unix.Inet4Pktinfo)(unsafe.Pointer(&data[0]))
			return appendCmsg(dst, unix.IPPROTO_IP, unix.IP_PKTINFO, unix.SizeofInet4Pktinfo, func(b []byte) {
				*(*unix.Inet4Pktinfo)(unsafe.Pointer(&b[0])) = unix.Inet4Pktinfo{Spec_dst: in.Addr}
			})
		}
		oob = oob[min(unix.CmsgSpace(l-unix.CmsgLen(0)), len(oob)):]
	}
	return dst
}

// appendCmsg appends one control message of size data bytes, filled by
// fill.
func appendCmsg(dst []byte, level, typ int32, size int, fill func([]byte)) []byte {
	start := len(dst)
	dst = append(dst, make([]byte, unix.CmsgSpace(size))...)
	h := (*unix.Cmsghdr)(unsafe.Pointer(&dst[start]))
	h.Level, h.Type = level, typ
	h.SetLen(unix.CmsgLen(size))
	fill(dst[start+unix.CmsgLen(0):])
	return dst
}
