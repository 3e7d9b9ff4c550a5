package userspace

import (
	"fmt"
	"net/netip"
	"os"
	"os/signal"
	"syscall"
	"testing"

	"github.com/svcplane/svcplane/internal/proxy"
	"github.com/svcplane/svcplane/internal/proxy/proxytest"
	"github.com/svcplane/svcplane/internal/proxy/proxytest/netlab"
)

// The kernel e2e re-executes this test binary inside network namespaces
// (ip netns exec) in helper roles chosen by netlab.RoleEnv.

func TestMain(m *testing.M) {
	switch os.Getenv(netlab.RoleEnv) {
	case "":
		os.Exit(m.Run())
	case "echo":
		netlab.Echo(os.Getenv("NAME"))
	case "serve":
		exitOn(runServe())
	case "dial":
		exitOn(netlab.Dial(os.Getenv("PROTO"), os.Getenv("ADDR"), 24, 0, true))
	}
	os.Exit(0)
}

func exitOn(err error) { netlab.ExitOn(err) }

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
	nft, err := NewNFT(proxy.IPv4)
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
