package userspace

import (
	"bufio"
	"fmt"
	"net"
	"net/netip"
	"os"
	"os/signal"
	"syscall"
	"testing"
	"time"

	"github.com/svcplane/svcplane/internal/proxy"
	"github.com/svcplane/svcplane/internal/proxy/proxytest"
)

// The kernel e2e re-executes this test binary inside network namespaces
// (ip netns exec) in helper roles chosen by SVCPLANE_E2E_ROLE.
const roleEnv = "SVCPLANE_E2E_ROLE"

func TestMain(m *testing.M) {
	switch os.Getenv(roleEnv) {
	case "":
		os.Exit(m.Run())
	case "echo":
		runEcho(os.Getenv("NAME"))
	case "serve":
		exitOn(runServe())
	case "dial":
		exitOn(runDial(os.Getenv("PROTO"), os.Getenv("ADDR"), 24))
	}
	os.Exit(0)
}

func exitOn(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// runServe runs the proxy for one state until SIGTERM: web (TCP, with a
// dead endpoint the proxy must retry past, NodePort 30080) and dns (UDP).
func runServe() error {
	web := proxytest.Svc("web", "10.96.0.10", 80, proxytest.NodePort(30080))
	slice := proxytest.Slice("web", 8080, "10.244.1.2@"+proxytest.OtherNode, "10.244.2.3@"+proxytest.OtherNode)
	dead := proxytest.Slice("web", 9, "10.244.2.3@"+proxytest.OtherNode)
	dead.Name = "web-dead"
	dns := proxytest.Svc("dns", "10.96.0.53", 53)
	dns.Spec.Ports[0].Protocol = "UDP"
	dnsSlice := proxytest.Slice("dns", 8080, "10.244.1.2@"+proxytest.OtherNode)
	dnsSlice.Ports[0].Protocol = &dns.Spec.Ports[0].Protocol
	snap := proxytest.Snapshot(proxy.IPv4, web, slice, dead, dns, dnsSlice)
	snap.Node.IPs = []netip.Addr{netip.MustParseAddr("10.100.0.1")}
	nft, err := NewNFT()
	if err != nil {
		return err
	}
	p, err := NewProxier(Config{}, NewRedirector(nft), func() *proxy.Snapshot { return snap }, nil)
	if err != nil {
		return err
	}
	if err := p.SyncProxyRules(true); err != nil {
		return err
	}
	fmt.Println("ready")
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, os.Interrupt)
	<-sig
	p.Close()
	return nil
}

func runEcho(name string) {
	l, err := net.Listen("tcp", ":8080")
	exitOn(err)
	u, err := net.ListenPacket("udp", ":8080")
	exitOn(err)
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

// runDial makes n connections (or datagrams) and prints each answer.
func runDial(proto, addr string, n int) error {
	for i := 0; i < n; i++ {
		c, err := net.DialTimeout(proto, addr, 2*time.Second)
		if err != nil {
			fmt.Println("error", err)
			continue
		}
		_ = c.SetDeadline(time.Now().Add(2 * time.Second))
		if proto == "udp" {
			_, _ = c.Write([]byte("hi"))
		}
		line, err := bufio.NewReader(c).ReadString('\n')
		c.Close()
		if err != nil {
			fmt.Println("error", err)
			continue
		}
		fmt.Print(line)
	}
	return nil
}
