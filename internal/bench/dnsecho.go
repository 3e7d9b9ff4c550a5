package bench

import (
	"context"
	"errors"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"syscall"

	"golang.org/x/net/ipv4"

	"github.com/svcplane/svcplane/internal/dns"
)

const echoName = "UDP echo (no DNS work)"

// startDNSEcho runs `svcplane bench dns --echo-serve <addr>,<ready>`: the
// floor target of the DNS bench.
func startDNSEcho() (*dnsTarget, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	addr, ready, err := freeAddrPair()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(self, "bench", "dns", "--echo-serve", addr+","+ready)
	return startDNSProcess(echoName, cmd, addr, ready)
}

// DNSEcho serves the DNS bench's floor on addr until SIGTERM: the sockets
// `svcplane dns` binds (one SO_REUSEPORT socket per CPU, one reader
// each, reading in batches), and every packet sent back at once as its
// own answer: the
// question with QR set and an answer count of 1, which is all the bench's
// client checks. No DNS work is done, so the q/s the client reaches here
// bounds what any server can reach on this machine with this client.
// ready serves /ready (200 once bound).
func DNSEcho(addr, ready string) error {
	pcs, l, err := dns.Listen(addr, runtime.GOMAXPROCS(0))
	if err != nil {
		return err
	}
	l.Close()
	hl, err := net.Listen("tcp", ready)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("OK")) })}
	go func() { _ = srv.Serve(hl) }()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	errs := make(chan error, len(pcs))
	for _, pc := range pcs {
		go func() { errs <- echo(pc.(*net.UDPConn)) }()
	}
	select {
	case <-ctx.Done():
	case err = <-errs:
	}
	for _, pc := range pcs {
		pc.Close()
	}
	_ = srv.Close()
	if errors.Is(err, net.ErrClosed) {
		return nil
	}
	return err
}

// echoBatch is how many datagrams one read takes, as svcplane dns reads
// them (recvmmsg and sendmmsg on Linux), so the echo's system calls are
// no dearer than the server's.
const echoBatch = 16

func echo(pc *net.UDPConn) error {
	c := ipv4.NewPacketConn(pc)
	msgs := make([]ipv4.Message, echoBatch)
	for i := range msgs {
		msgs[i].Buffers = [][]byte{make([]byte, 4096)}
	}
	for {
		n, err := c.ReadBatch(msgs, 0)
		if err != nil {
			return err
		}
		out := msgs[:0]
		for _, m := range msgs[:n] {
			if m.N < 12 {
				continue
			}
			b := m.Buffers[0]
			b[2] |= 0x80      // QR: a response
			b[6], b[7] = 0, 1 // ANCOUNT 1
			out = append(out, ipv4.Message{Buffers: [][]byte{b[:m.N]}, Addr: m.Addr})
		}
		for len(out) > 0 {
			k, err := c.WriteBatch(out, 0)
			if err != nil {
				break // dropped, as a failed send drops
			}
			out = out[k:]
		}
	}
}
