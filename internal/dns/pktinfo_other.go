//go:build !linux

package dns

import (
	"errors"
	"net"
)

const oobSize = 0

func enablePktinfo(*net.UDPConn) error {
	return errors.New("packet info is read on Linux only")
}

func appendReplyOOB(dst, _ []byte) []byte { return dst }
