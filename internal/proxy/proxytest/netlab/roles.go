package netlab

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"strconv"
	"time"
)

// ExitOn ends a helper role with the error on stderr.
func ExitOn(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// Echo is the "echo" role: it answers TCP connections on :8080 with
// "<name> <client IP>" and UDP datagrams with "<name>", after printing
// "ready". It runs until killed.
func Echo(name string) {
	l, err := net.Listen("tcp", ":8080")
	ExitOn(err)
	u, err := net.ListenPacket("udp", ":8080")
	ExitOn(err)
	go func() {
		buf := make([]byte, 64)
		for {
			_, addr, err := u.ReadFrom(buf)
			if err != nil {
				return
			}
			_, _ = u.WriteTo([]byte(name+"\n"), addr)
		}
	}()
	fmt.Println("ready")
	for {
		c, err := l.Accept()
		if err != nil {
			return
		}
		fmt.Fprintf(c, "%s %s\n", name, c.RemoteAddr().(*net.TCPAddr).IP)
		c.Close()
	}
}

// DialFromEnv is the "dial" role: PROTO and ADDR, DIAL_N answers (24),
// SPORT a fixed source port, ONE_SOCKET=1 every UDP datagram from one
// socket (one conntrack flow).
func DialFromEnv() error {
	n, sport := 24, 0
	if v := os.Getenv("DIAL_N"); v != "" {
		n, _ = strconv.Atoi(v)
	}
	if v := os.Getenv("SPORT"); v != "" {
		sport, _ = strconv.Atoi(v)
	}
	return Dial(os.Getenv("PROTO"), os.Getenv("ADDR"), n, sport, os.Getenv("ONE_SOCKET") == "1")
}

// Dial makes n connections (or sends n datagrams) and prints each answer,
// or "error …". sport > 0 fixes the source port; oneSocket sends every UDP
// datagram from one socket.
func Dial(proto, addr string, n, sport int, oneSocket bool) error {
	d := net.Dialer{Timeout: 2 * time.Second}
	if sport > 0 {
		d.LocalAddr = &net.UDPAddr{Port: sport}
		if proto == "tcp" {
			d.LocalAddr = &net.TCPAddr{Port: sport}
		}
	}
	var kept net.Conn
	defer func() {
		if kept != nil {
			kept.Close()
		}
	}()
	for i := 0; i < n; i++ {
		c, err := kept, error(nil)
		if c == nil {
			c, err = d.Dial(proto, addr)
		}
		if err != nil {
			fmt.Println("error", err)
			continue
		}
		_ = c.SetDeadline(time.Now().Add(2 * time.Second))
		if proto == "udp" {
			_, _ = c.Write([]byte("hi"))
		}
		line, err := bufio.NewReader(c).ReadString('\n')
		if proto == "udp" && oneSocket {
			kept = c
		} else {
			c.Close()
		}
		if err != nil {
			fmt.Println("error", err)
			continue
		}
		fmt.Print(line)
	}
	return nil
}

// Main is the TestMain of a package with kernel tests. Outside a lab
// (RoleEnv unset) it exits with run's code. Re-executed in a helper role
// it plays that role and exits: roles first, then netlab's own "echo" and
// "dial"; a failing role exits 1 with its error on stderr.
func Main(run func() int, roles map[string]func() error) {
	role := os.Getenv(RoleEnv)
	switch {
	case role == "":
		os.Exit(run())
	case roles[role] != nil:
		ExitOn(roles[role]())
	case role == "echo":
		Echo(os.Getenv("NAME"))
	case role == "dial":
		ExitOn(DialFromEnv())
	default:
		ExitOn(fmt.Errorf("unknown helper role %q", role))
	}
	os.Exit(0)
}
