package nftables

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/svcplane/svcplane/internal/proxy"
	"github.com/svcplane/svcplane/internal/proxy/conntrack"
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
	case "sync":
		err := runSyncSteps(strings.Split(os.Getenv("STEPS"), ","))
		exitOn(err)
	case "cleanup":
		nft, err := NewInterface(proxy.IPv4)
		exitOn(err)
		exitOn(Cleanup(context.Background(), nft))
	case "dial":
		n, sport := 24, 0
		if v := os.Getenv("DIAL_N"); v != "" {
			n, _ = strconv.Atoi(v)
		}
		if v := os.Getenv("SPORT"); v != "" {
			sport, _ = strconv.Atoi(v)
		}
		exitOn(runDial(os.Getenv("PROTO"), os.Getenv("ADDR"), n, sport))
	}
	os.Exit(0)
}

func exitOn(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// e2eStates are the cluster states the kernel test installs.
func e2eStates() map[string][]runtime.Object {
	web := proxytest.Svc("web", "10.96.0.10", 80, proxytest.NodePort(30080))
	udp := proxytest.Svc("dns", "10.96.0.53", 53)
	udp.Spec.Ports[0].Protocol = "UDP"
	udpSlice := proxytest.Slice("dns", 8080, "10.244.1.2@"+proxytest.OtherNode)
	udpSlice.Ports[0].Protocol = &udp.Spec.Ports[0].Protocol
	both := proxytest.Slice("web", 8080, "10.244.1.2@"+proxytest.OtherNode, "10.244.2.3@"+proxytest.OtherNode)
	one := proxytest.Slice("web", 8080, "10.244.1.2@"+proxytest.OtherNode)
	states := map[string][]runtime.Object{
		"two":  {web, both, udp, udpSlice},
		"one":  {web, one, udp, udpSlice},
		"none": {web},
	}
	for _, more := range []map[string][]runtime.Object{moreE2EStates(), ipv6E2EStates()} {
		for name, objs := range more {
			states[name] = objs
		}
	}
	return states
}

func runSyncSteps(steps []string) error {
	family := proxy.IPv4
	if os.Getenv("FAMILY") == "6" {
		family = proxy.IPv6
	}
	nft, err := NewInterface(family)
	if err != nil {
		return err
	}
	var snap *proxy.Snapshot
	p := NewProxier(Config{Family: family}, nft, func() *proxy.Snapshot { return snap })
	var ctErr error
	p.OnSynced = func(_ SyncResult, _, cur *proxy.Snapshot, err error) {
		if err == nil {
			_, ctErr = conntrack.CleanStaleEntries(conntrack.New(), cur, nil)
		}
	}
	for i, s := range steps {
		snap = proxytest.Snapshot(family, e2eStates()[s]...)
		if err := p.SyncProxyRules(i == 0); err != nil {
			return err
		}
		if ctErr != nil {
			return ctErr
		}
	}
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

// runDial makes n connections (or datagrams) and prints each answer;
// sport > 0 fixes the source port (UDP: one conntrack entry for all).
func runDial(proto, addr string, n, sport int) error {
	d := net.Dialer{Timeout: 2 * time.Second}
	if sport > 0 {
		d.LocalAddr = &net.UDPAddr{Port: sport}
		if proto == "tcp" {
			d.LocalAddr = &net.TCPAddr{Port: sport}
		}
	}
	for i := 0; i < n; i++ {
		c, err := d.Dial(proto, addr)
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
