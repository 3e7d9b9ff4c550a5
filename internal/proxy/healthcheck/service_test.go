package healthcheck

import (
	"io"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/svcplane/svcplane/internal/proxy"
)

// loopbackListeners opens a free loopback port for each requested address
// and remembers which real address serves which requested one.
type loopbackListeners struct {
	mu    sync.Mutex
	addrs map[string]string
}

func (l *loopbackListeners) listen(addr string) (net.Listener, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err == nil {
		l.mu.Lock()
		l.addrs[addr] = ln.Addr().String()
		l.mu.Unlock()
	}
	return ln, err
}

func fetch(t *testing.T, addr string) (int, string) {
	t.Helper()
	resp, err := http.Get("http://" + addr + "/")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestServiceHealthServer(t *testing.T) {
	ls := &loopbackListeners{addrs: map[string]string{}}
	var healthy atomic.Bool
	healthy.Store(true)
	s := NewServiceHealthServer(nil, healthy.Load, ls.listen)
	defer s.Close()
	web := ServiceName{"ns", "web"}
	if err := s.SyncServices(map[ServiceName]uint16{web: 31000}); err != nil {
		t.Fatal(err)
	}
	addr := ls.addrs[":31000"]
	if code, body := fetch(t, addr); code != 503 || !strings.Contains(body, `"localEndpoints": 0`) {
		t.Errorf("no endpoints: %d %s", code, body)
	}
	s.SyncEndpoints(map[ServiceName]int{web: 2})
	code, body := fetch(t, addr)
	want := "{\n\t\"service\": {\n\t\t\"namespace\": \"ns\",\n\t\t\"name\": \"web\"\n\t},\n\t\"localEndpoints\": 2,\n\t\"serviceProxyHealthy\": true\n}"
	if code != 200 || body != want {
		t.Errorf("two local endpoints: %d %q", code, body)
	}
	healthy.Store(false)
	if code, body := fetch(t, addr); code != 503 || !strings.Contains(body, `"serviceProxyHealthy": false`) {
		t.Errorf("unhealthy proxy: %d %s", code, body)
	}
	// Moving the port closes the old server and opens a new one.
	if err := s.SyncServices(map[ServiceName]uint16{web: 31001}); err != nil {
		t.Fatal(err)
	}
	if _, err := http.Get("http://" + addr + "/"); err == nil {
		t.Error("old health check port still answers")
	}
	if _, ok := ls.addrs[":31001"]; !ok {
		t.Error("new port not opened")
	}
}

func TestServiceHealthListensOnNodeIPs(t *testing.T) {
	ls := &loopbackListeners{addrs: map[string]string{}}
	s := NewServiceHealthServer([]netip.Addr{netip.MustParseAddr("192.168.0.2"), netip.MustParseAddr("fd00::2")},
		func() bool { return true }, ls.listen)
	defer s.Close()
	if err := s.SyncServices(map[ServiceName]uint16{{"ns", "a"}: 31000}); err != nil {
		t.Fatal(err)
	}
	if len(ls.addrs) != 2 || ls.addrs["192.168.0.2:31000"] == "" || ls.addrs["[fd00::2]:31000"] == "" {
		t.Errorf("listened on %v", ls.addrs)
	}
}

func TestFromSnapshot(t *testing.T) {
	lb := func(port string) proxy.ServicePortName {
		return proxy.ServicePortName{Namespace: "ns", Name: "lb", Port: port, Protocol: proxy.TCP}
	}
	other := proxy.ServicePortName{Namespace: "ns", Name: "other", Protocol: proxy.TCP}
	ip := netip.MustParseAddr
	snap := &proxy.Snapshot{
		Services: map[proxy.ServicePortName]*proxy.ServicePort{
			lb("a"): {Name: lb("a"), HealthCheckNodePort: 31000},
			lb("b"): {Name: lb("b"), HealthCheckNodePort: 31000},
			other:   {Name: other},
		},
		Endpoints: map[proxy.ServicePortName][]proxy.Endpoint{
			lb("a"): {{IP: ip("10.0.0.1"), Port: 80, IsLocal: true, Ready: true}, {IP: ip("10.0.0.2"), Port: 80, Ready: true},
				{IP: ip("10.0.0.3"), Port: 80, IsLocal: true, Serving: true, Terminating: true}},
			lb("b"): {{IP: ip("10.0.0.1"), Port: 81, IsLocal: true, Ready: true}},
			other:   {{IP: ip("10.0.0.9"), Port: 80, IsLocal: true, Ready: true}},
		},
	}
	svcs, eps := FromSnapshot(snap)
	if len(svcs) != 1 || svcs[ServiceName{"ns", "lb"}] != 31000 {
		t.Errorf("services %v", svcs)
	}
	if len(eps) != 1 || eps[ServiceName{"ns", "lb"}] != 1 {
		t.Errorf("endpoints %v (one local ready address over both ports)", eps)
	}
}
