package userspace

import (
	"bufio"
	"fmt"
	"net"
	"net/netip"
	"strings"
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"

	"github.com/svcplane/svcplane/internal/proxy"
)

// backend is a loopback TCP (and UDP) server answering its name.
func backend(t *testing.T, name string) netip.AddrPort { return backendOn(t, "127.0.0.1", name) }

// backendOn is a TCP (and UDP) server on host answering its name.
func backendOn(t *testing.T, host, name string) netip.AddrPort {
	t.Helper()
	l, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			fmt.Fprintln(c, name)
			c.Close()
		}
	}()
	ap := l.Addr().(*net.TCPAddr).AddrPort()
	u, err := net.ListenUDP("udp", net.UDPAddrFromAddrPort(ap))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { u.Close() })
	go func() {
		buf := make([]byte, 100)
		for {
			n, from, err := u.ReadFromUDPAddrPort(buf)
			if err != nil {
				return
			}
			_, _ = u.WriteToUDPAddrPort(append([]byte(name+":"), buf[:n]...), from)
		}
	}()
	return ap
}

// deadPort is a loopback port nothing listens on.
func deadPort(t *testing.T) netip.AddrPort {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ap := l.Addr().(*net.TCPAddr).AddrPort()
	l.Close()
	return ap
}

func snapOf(proto proxy.Protocol, sticky int, eps ...netip.AddrPort) *proxy.Snapshot {
	s := snapAt("10.96.0.10", proto, 0, eps...)
	for _, svc := range s.Services {
		svc.StickyMaxAgeSeconds = sticky
	}
	return s
}

// snapAt is one service port "web" on clusterIP:80 (the snapshot's family
// is clusterIP's) with a NodePort when np > 0.
func snapAt(clusterIP string, proto proxy.Protocol, np uint16, eps ...netip.AddrPort) *proxy.Snapshot {
	name := proxy.ServicePortName{Namespace: "ns", Name: "web", Port: "p", Protocol: proto}
	vip := netip.MustParseAddr(clusterIP)
	s := &proxy.Snapshot{Family: proxy.FamilyOf(vip), Services: map[proxy.ServicePortName]*proxy.ServicePort{
		name: {Name: name, Protocol: proto, ClusterIP: vip, Port: 80, NodePort: np}},
		Endpoints: map[proxy.ServicePortName][]proxy.Endpoint{}}
	for _, ep := range eps {
		s.Endpoints[name] = append(s.Endpoints[name], proxy.Endpoint{IP: ep.Addr(), Port: ep.Port(), Ready: true, Serving: true})
	}
	return s
}

func listenerPort(p *Proxier, proto proxy.Protocol) uint16 {
	return p.services[proxy.ServicePortName{Namespace: "ns", Name: "web", Port: "p", Protocol: proto}].listeners[kindCluster].port()
}

// ask returns the backend's answer, or "error: …" when the connection is
// refused or reset. A reset can reach the client before its connect returns,
// so a refusal may surface from Dial as well as from the read.
func ask(t *testing.T, port uint16) string {
	t.Helper()
	return askAt(t, fmt.Sprintf("127.0.0.1:%d", port))
}

// askAt is ask for any address.
func askAt(t *testing.T, addr string) string {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		return "error: " + err.Error()
	}
	defer c.Close()
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return "error: " + err.Error()
	}
	return line[:len(line)-1]
}

// A connect to a dead endpoint is retried on another: no client sees it.
func TestTCPRetriesAnotherEndpoint(t *testing.T) {
	snap := snapOf(proxy.TCP, 0, backend(t, "b1"), deadPort(t), backend(t, "b2"))
	p, _ := testProxier(t, &snap)
	if err := p.SyncProxyRules(true); err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for i := 0; i < 30; i++ {
		got[ask(t, listenerPort(p, proxy.TCP))]++
	}
	if got["b1"] == 0 || got["b2"] == 0 || got["b1"]+got["b2"] != 30 {
		t.Errorf("answers: %v", got)
	}
	// Endpoints change under the same listener.
	snap = snapOf(proxy.TCP, 0, backend(t, "b3"))
	if err := p.SyncProxyRules(false); err != nil {
		t.Fatal(err)
	}
	if got := ask(t, listenerPort(p, proxy.TCP)); got != "b3" {
		t.Errorf("after the change: %s", got)
	}
	snap = snapOf(proxy.TCP, 0)
	if err := p.SyncProxyRules(false); err != nil {
		t.Fatal(err)
	}
	if got := ask(t, listenerPort(p, proxy.TCP)); !strings.HasPrefix(got, "error") {
		t.Errorf("no endpoints should be refused, got %q", got)
	}
}

func TestClientIPAffinityWithTimeout(t *testing.T) {
	clk := clocktesting.NewFakeClock(time.Unix(0, 0))
	snap := snapOf(proxy.TCP, 60, backend(t, "b1"), backend(t, "b2"))
	p, err := NewProxier(Config{ListenAddr: netip.MustParseAddr("127.0.0.1")}, nil, func() *proxy.Snapshot { return snap }, clk)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	if err := p.SyncProxyRules(true); err != nil {
		t.Fatal(err)
	}
	first := ask(t, listenerPort(p, proxy.TCP))
	if first != "b1" && first != "b2" {
		t.Fatalf("first answer: %q", first)
	}
	for i := 0; i < 10; i++ {
		clk.Step(30 * time.Second) // within the timeout each time
		if got := ask(t, listenerPort(p, proxy.TCP)); got != first {
			t.Fatalf("affinity broken: %s then %s", first, got)
		}
	}
	clk.Step(61 * time.Second)
	if got := ask(t, listenerPort(p, proxy.TCP)); got == first {
		t.Errorf("after the timeout round robin should move on from %s", first)
	}
}

func TestUDPRelaysBothWays(t *testing.T) {
	snap := snapOf(proxy.UDP, 0, backend(t, "b1"))
	p, _ := testProxier(t, &snap)
	if err := p.SyncProxyRules(true); err != nil {
		t.Fatal(err)
	}
	c, err := net.Dial("udp", fmt.Sprintf("127.0.0.1:%d", listenerPort(p, proxy.UDP)))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	buf := make([]byte, 100)
	for _, msg := range []string{"one", "two"} {
		if _, err := c.Write([]byte(msg)); err != nil {
			t.Fatal(err)
		}
		_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
		n, err := c.Read(buf)
		if err != nil || string(buf[:n]) != "b1:"+msg {
			t.Fatalf("got %q %v", buf[:n], err)
		}
	}
}
