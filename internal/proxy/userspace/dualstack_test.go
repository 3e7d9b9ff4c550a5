package userspace

import (
	"net"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/knftables"

	"github.com/svcplane/svcplane/internal/proxy"
)

// freePort is a port free for TCP and UDP on the IPv4 and IPv6 wildcards
// when it is returned.
func freePort(t *testing.T) uint16 {
	t.Helper()
	for range 20 {
		l, err := net.Listen("tcp", ":0") // dual-stack: free for both families
		if err != nil {
			t.Fatal(err)
		}
		port := l.Addr().(*net.TCPAddr).Port
		u, err := net.ListenPacket("udp", ":"+strconv.Itoa(port))
		l.Close()
		if err == nil {
			u.Close()
			return uint16(port)
		}
	}
	t.Fatal("no port free for TCP and UDP")
	return 0
}

// askUDP sends one datagram to addr and returns the answer.
func askUDP(t *testing.T, addr string) string {
	t.Helper()
	c, err := net.Dial("udp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Write([]byte("hi")); err != nil {
		return "error: " + err.Error()
	}
	buf := make([]byte, 100)
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	n, err := c.Read(buf)
	if err != nil {
		return "error: " + err.Error()
	}
	return string(buf[:n])
}

func ruleStrings(fake *knftables.Fake, chain string) []string {
	var out []string
	if c := fake.Table.Chains[chain]; c != nil {
		for _, r := range c.Rules {
			out = append(out, r.Rule)
		}
	}
	return out
}

// portalStrings returns the portal map's elements as "daddr . proto .
// port : listener port", sorted.
func portalStrings(fake *knftables.Fake) []string {
	var out []string
	if m := fake.Table.Maps[mapPortals]; m != nil {
		for _, e := range m.Elements {
			out = append(out, strings.Join(e.Key, " . ")+" : "+strings.Join(e.Value, ""))
		}
	}
	slices.Sort(out)
	return out
}

func TestConfigFamily(t *testing.T) {
	c := Config{Family: proxy.IPv6}
	c.defaults()
	if c.ListenAddr != netip.IPv6Unspecified() {
		t.Errorf("IPv6 default listen address: %s", c.ListenAddr)
	}
	c = Config{ListenAddr: netip.MustParseAddr("::1")}
	if c.defaults(); c.Family != proxy.IPv6 {
		t.Errorf("family from the listen address: %d", c.Family)
	}
	c = Config{}
	if c.defaults(); c.Family != proxy.IPv4 || c.ListenAddr != netip.IPv4Unspecified() {
		t.Errorf("defaults: %+v", c)
	}
	if _, err := NewProxier(Config{Family: proxy.IPv6, ListenAddr: netip.MustParseAddr("127.0.0.1")}, nil, nil, nil); err == nil {
		t.Error("an IPv4 listen address for an IPv6 proxier should be refused")
	}
	snap := snapAt("10.96.0.10", proxy.TCP, 0)
	p, err := NewProxier(Config{Family: proxy.IPv6}, nil, func() *proxy.Snapshot { return snap }, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	if err := p.SyncProxyRules(true); err == nil {
		t.Error("an IPv4 snapshot given to the IPv6 proxier should fail the sync")
	}
}

// An IPv6 proxier listens on IPv6, writes ip6 portals and relays TCP and
// UDP to IPv6 endpoints.
func TestIPv6ListenersAndPortals(t *testing.T) {
	for _, proto := range []proxy.Protocol{proxy.TCP, proxy.UDP} {
		t.Run(string(proto), func(t *testing.T) {
			snap := snapAt("fd00:96::10", proto, 0, backendOn(t, "::1", "b1"))
			fake := knftables.NewFake(knftables.IPv6Family, TableName)
			p, err := NewProxier(Config{Family: proxy.IPv6, ListenAddr: netip.MustParseAddr("::1")}, NewRedirector(fake, proxy.IPv6),
				func() *proxy.Snapshot { return snap }, nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(p.Close)
			if err := p.SyncProxyRules(true); err != nil {
				t.Fatal(err)
			}
			port := listenerPort(p, proto)
			want := []string{"fd00:96::10 . " + protoWord(proto) + " . 80 : " + strconv.Itoa(int(port))}
			if got := portalStrings(fake); !slices.Equal(got, want) {
				t.Errorf("portals: got %q, want %q", got, want)
			}
			rule := "meta l4proto { tcp, udp, sctp } redirect to :ip6 daddr . meta l4proto . th dport map @" + mapPortals
			if got := ruleStrings(fake, chainPortals); !slices.Equal(got, []string{rule}) {
				t.Errorf("portal chain: got %q, want %q", got, rule)
			}
			addr := net.JoinHostPort("::1", strconv.Itoa(int(port)))
			got := ""
			if proto == proxy.TCP {
				got = askAt(t, addr)
			} else {
				got = askUDP(t, addr)
			}
			if got != "b1" && got != "b1:hi" {
				t.Errorf("through the IPv6 listener: %q", got)
			}
		})
	}
}

// The IPv4 and IPv6 proxiers of a dual-stack node bind the same NodePort
// on their wildcard addresses at once, each answering its family.
func TestDualStackSameNodePort(t *testing.T) {
	for _, proto := range []proxy.Protocol{proxy.TCP, proxy.UDP} {
		t.Run(string(proto), func(t *testing.T) {
			np := freePort(t)
			snaps := map[proxy.IPFamily]*proxy.Snapshot{
				proxy.IPv4: snapAt("10.96.0.10", proto, np, backendOn(t, "127.0.0.1", "b4")),
				proxy.IPv6: snapAt("fd00:96::10", proto, np, backendOn(t, "::1", "b6")),
			}
			for _, fam := range []proxy.IPFamily{proxy.IPv4, proxy.IPv6} {
				snap := snaps[fam]
				p, err := NewProxier(Config{Family: fam}, nil, func() *proxy.Snapshot { return snap }, nil)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(p.Close)
				if err := p.SyncProxyRules(true); err != nil {
					t.Fatalf("IPv%d: %v", fam, err)
				}
			}
			for host, want := range map[string]string{"127.0.0.1": "b4", "::1": "b6"} {
				addr := net.JoinHostPort(host, strconv.Itoa(int(np)))
				got := ""
				if proto == proxy.TCP {
					got = askAt(t, addr)
				} else {
					got = askUDP(t, addr)
				}
				if got != want && got != want+":hi" {
					t.Errorf("NodePort %s: got %q, want %s", addr, got, want)
				}
			}
		})
	}
}
