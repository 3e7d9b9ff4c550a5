package netns

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"syscall"

	"github.com/spf13/pflag"
)

// connect is agnhost's connect: one TCP or UDP connection from the pod,
// exit 0 when it worked, else 1 and TIMEOUT, DNS, REFUSED, OTHER or
// UNKNOWN on stderr, as the Services tests check.
func connect(ctx context.Context, pio *procIO, args []string) int {
	fs := pflag.NewFlagSet("connect", pflag.ContinueOnError)
	timeout := fs.Duration("timeout", 0, "Maximum time before returning an error")
	protocol := fs.String("protocol", "tcp", "tcp or udp")
	udpData := fs.String("udp-data", "hostname", "The UDP payload send to the server")
	if !parseFlags(fs, args, pio.stderr) {
		return 1
	}
	if fs.NArg() != 1 {
		fmt.Fprintf(pio.stderr, "Error: accepts 1 arg(s), received %d\n", fs.NArg())
		return 1
	}
	dest := fs.Arg(0)
	if *timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, *timeout)
		defer cancel()
	}
	switch *protocol {
	case "", "tcp":
		if _, _, err := net.SplitHostPort(dest); err != nil {
			fmt.Fprintf(pio.stderr, "UNKNOWN: %v\n", err)
			return 1
		}
		if _, err := net.ResolveTCPAddr("tcp", dest); err != nil {
			fmt.Fprintf(pio.stderr, "DNS: %v\n", err)
			return 1
		}
		conn, err := dialIn(ctx, pio.pod.ns, "tcp", dest)
		if err == nil {
			_ = conn.Close()
			return 0
		}
		var oe *net.OpError
		switch {
		case errors.As(err, &oe) && oe.Timeout(), errors.Is(err, context.DeadlineExceeded):
			fmt.Fprintf(pio.stderr, "TIMEOUT\n")
		case errors.Is(err, syscall.ECONNREFUSED):
			fmt.Fprintf(pio.stderr, "REFUSED\n")
		default:
			fmt.Fprintf(pio.stderr, "OTHER: %v\n", err)
		}
		return 1
	case "udp":
		if _, err := net.ResolveUDPAddr("udp", dest); err != nil {
			fmt.Fprintf(pio.stderr, "DNS: %v\n", err)
			return 1
		}
		conn, err := dialIn(ctx, pio.pod.ns, "udp", dest)
		if err != nil {
			fmt.Fprintf(pio.stderr, "OTHER: %v\n", err)
			return 1
		}
		defer conn.Close()
		if d, ok := ctx.Deadline(); ok {
			_ = conn.SetDeadline(d)
		}
		buf := make([]byte, 1024)
		_, err = conn.Write([]byte(*udpData + "\n"))
		n := 0
		if err == nil {
			n, err = conn.Read(buf)
		}
		var ne net.Error
		switch {
		case err == nil && n == 0:
			fmt.Fprintf(pio.stderr, "OTHER: No data received from the server. Cannot guarantee the server received the request.\n")
		case err == nil:
			return 0
		case errors.As(err, &ne) && ne.Timeout():
			fmt.Fprintf(pio.stderr, "TIMEOUT: %v\n", err)
		case strings.Contains(err.Error(), "connection refused"):
			fmt.Fprintf(pio.stderr, "REFUSED: %v\n", err)
		default:
			fmt.Fprintf(pio.stderr, "UNKNOWN: %v\n", err)
		}
		return 1
	}
	fmt.Fprintf(pio.stderr, "Unsupported protocol\n%s", *protocol)
	return 1
}
