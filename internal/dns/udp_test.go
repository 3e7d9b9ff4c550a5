package dns

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/netip"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	mdns "github.com/miekg/dns"
	"golang.org/x/tools/txtar"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// serveUDP runs s's UDP readers on one socket bound to addr until the
// test ends and returns the socket's address and its reader.
func serveUDP(t *testing.T, s *Server, addr string) (string, *udpReader) {
	t.Helper()
	pc, err := net.ListenPacket("udp", addr)
	if err != nil {
		t.Fatal(err)
	}
	r := newUDPReader(s, pc.(*net.UDPConn))
	done := make(chan error, 1)
	go func() { done <- r.run() }()
	t.Cleanup(func() {
		pc.Close()
		if err := <-done; err != nil {
			t.Errorf("reader: %v", err)
		}
	})
	return pc.LocalAddr().String(), r
}

// exchange sends pkt over conn and returns the answer.
func exchange(t *testing.T, conn net.Conn, pkt []byte) []byte {
	t.Helper()
	if _, err := conn.Write(pkt); err != nil {
		t.Fatal(err)
	}
	_ = conn.SetReadDeadline(time.Now().Add(2 * time.Second))
	buf := make([]byte, 65535)
	n, err := conn.Read(buf)
	if err != nil {
		t.Fatalf("no answer: %v", err)
	}
	return buf[:n]
}

// direct is what serve writes for pkt (the answer before any cache).
func direct(t *testing.T, s *Server, pkt []byte) []byte {
	t.Helper()
	req := new(mdns.Msg)
	if err := req.Unpack(pkt); err != nil {
		t.Fatal(err)
	}
	w := &captureWriter{}
	s.serve(w, req, "udp", 1, time.Now())
	return w.buf
}

type captureWriter struct {
	mdns.ResponseWriter
	buf []byte
}

func (w *captureWriter) Write(b []byte) (int, error) {
	w.buf = append([]byte(nil), b...)
	return len(b), nil
}

// TestCachedAnswersMatch: every question of the record tables, in the
// case it is written and in upper case, plain and with EDNS0 (1232 and
// 4096 bytes), asked twice over UDP with different IDs: both answers are
// byte for byte what serve writes without any cache, with the asker's ID,
// and the second one came from the cache.
func TestCachedAnswersMatch(t *testing.T) {
	files, err := filepath.Glob("testdata/records/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no testdata/records/*.txtar: %v", err)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			ar, err := txtar.ParseFile(file)
			if err != nil {
				t.Fatal(err)
			}
			var objects, queries string
			for _, f := range ar.Files {
				switch f.Name {
				case "objects.yaml":
					objects = string(f.Data)
				case "queries":
					queries = string(f.Data)
				}
			}
			s := testServer(t, objects)
			addr, r := serveUDP(t, s, "127.0.0.1:0")
			conn, err := net.Dial("udp", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			id := uint16(0)
			asked := map[string]bool{}
			for _, line := range strings.Split(strings.TrimSpace(queries), "\n") {
				f := strings.Fields(line)
				if len(f) != 2 || strings.HasPrefix(f[0], "#") {
					continue
				}
				names := []string{f[0]}
				if up := strings.ToUpper(f[0]); up != f[0] {
					names = append(names, up)
				}
				for _, name := range names {
					for _, edns := range []uint16{0, 1232, 4096} {
						q := new(mdns.Msg)
						q.SetQuestion(name, mdns.StringToType[f[1]])
						if edns > 0 {
							q.SetEdns0(edns, false)
						}
						pkt, err := q.Pack()
						if err != nil {
							t.Fatal(err)
						}
						want := direct(t, s, pkt)
						before := r.cache.len()
						for try := range 2 {
							id++
							pkt[0], pkt[1] = byte(id>>8), byte(id)
							want[0], want[1] = pkt[0], pkt[1]
							if got := exchange(t, conn, pkt); !bytes.Equal(got, want) {
								t.Errorf("%s %s EDNS0 %d, try %d: got\n%x\nwant\n%x", name, f[1], edns, try, got, want)
							}
						}
						k := fmt.Sprint(name, f[1], edns)
						if !asked[k] && r.cache.len() != before+1 {
							t.Errorf("%s %s EDNS0 %d: cache entries %d → %d, want one more", name, f[1], edns, before, r.cache.len())
						}
						asked[k] = true
					}
				}
			}
		})
	}
}

// TestCacheFollowsIndex: a cached answer changes as soon as the index
// does (a Service created, its cluster IP changed, deleted; a headless
// Service's endpoints), while the endpoints of a ClusterIP Service, which
// its answers do not show, leave the cache alone.
func TestCacheFollowsIndex(t *testing.T) {
	x := NewIndex()
	s := NewServer(NewResolver(x, "cluster.local", 5*time.Second), nil, nil)
	addr, _ := serveUDP(t, s, "127.0.0.1:0")
	conn, err := net.Dial("udp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ask := func(name string) string {
		t.Helper()
		q := new(mdns.Msg)
		q.SetQuestion(name, mdns.TypeA)
		pkt, _ := q.Pack()
		var last string
		for range 2 { // the second from the cache
			resp := new(mdns.Msg)
			if err := resp.Unpack(exchange(t, conn, pkt)); err != nil {
				t.Fatal(err)
			}
			var ips []string
			for _, rr := range resp.Answer {
				ips = append(ips, rr.(*mdns.A).A.String())
			}
			last = mdns.RcodeToString[resp.Rcode] + " " + strings.Join(ips, ",")
		}
		return last
	}
	web := "web.ns.svc.cluster.local."
	svc := func(ip string) *corev1.Service {
		return &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "web"}, Spec: corev1.ServiceSpec{ClusterIP: ip}}
	}
	slice := func(svc string, addrs ...string) *discoveryv1.EndpointSlice {
		es := &discoveryv1.EndpointSlice{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: svc + "-1",
			Labels: map[string]string{discoveryv1.LabelServiceName: svc}}, AddressType: discoveryv1.AddressTypeIPv4}
		for _, a := range addrs {
			es.Endpoints = append(es.Endpoints, discoveryv1.Endpoint{Addresses: []string{a}, Conditions: discoveryv1.EndpointConditions{Ready: ptr.To(true)}})
		}
		return es
	}
	steps := []struct {
		what   string
		change func()
		name   string
		want   string
	}{
		{"absent", func() {}, web, "NXDOMAIN "},
		{"created", func() { x.SetService(svc("10.96.0.20")) }, web, "NOERROR 10.96.0.20"},
		{"cluster IP changed", func() { x.SetService(svc("10.96.0.21")) }, web, "NOERROR 10.96.0.21"},
		{"deleted", func() { x.DeleteService("ns", "web") }, web, "NXDOMAIN "},
		{"headless", func() {
			x.SetService(&corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "db"}, Spec: corev1.ServiceSpec{ClusterIP: "None"}})
			x.SetEndpointSlice(slice("db", "10.244.0.1"))
		}, "db.ns.svc.cluster.local.", "NOERROR 10.244.0.1"},
		{"headless endpoints changed", func() { x.SetEndpointSlice(slice("db", "10.244.0.1", "10.244.0.2")) }, "db.ns.svc.cluster.local.", "NOERROR 10.244.0.1,10.244.0.2"},
		{"headless endpoints gone", func() { x.DeleteEndpointSlice(slice("db")) }, "db.ns.svc.cluster.local.", "NXDOMAIN "},
	}
	for _, st := range steps {
		st.change()
		if got := ask(st.name); got != st.want {
			t.Errorf("%s: %s answers %q, want %q", st.what, st.name, got, st.want)
		}
	}
	x.SetService(svc("10.96.0.22"))
	gen := x.Generation()
	x.SetEndpointSlice(slice("web", "10.244.1.1"))
	x.DeleteEndpointSlice(slice("web"))
	if x.Generation() != gen {
		t.Errorf("a ClusterIP Service's endpoints moved the generation %d → %d", gen, x.Generation())
	}
}

// TestCaseKept: the answer's owner names are the question's, letter for
// letter, whichever casing the cache saw first.
func TestCaseKept(t *testing.T) {
	x := NewIndex()
	x.SetService(&corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "web"}, Spec: corev1.ServiceSpec{ClusterIP: "10.96.0.20"}})
	addr, _ := serveUDP(t, NewServer(NewResolver(x, "cluster.local", 5*time.Second), nil, nil), "127.0.0.1:0")
	for _, name := range []string{"web.ns.svc.cluster.local.", "WEB.Ns.svc.Cluster.LOCAL.", "web.ns.svc.cluster.local.", "WEB.Ns.svc.Cluster.LOCAL."} {
		r := ask(t, "udp", addr, name, mdns.TypeA, 0)
		if len(r.Answer) != 1 || r.Answer[0].Header().Name != name || r.Question[0].Name != name {
			t.Errorf("%s: %v", name, r)
		}
	}
}

// TestWildcardReplySource: on a socket bound to the wildcard address, the
// answer (first computed, then from the cache) comes from the address the
// question went to, or a connected client would never see it.
func TestWildcardReplySource(t *testing.T) {
	x := NewIndex()
	x.SetService(&corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "web"}, Spec: corev1.ServiceSpec{ClusterIP: "10.96.0.20"}})
	s := NewServer(NewResolver(x, "cluster.local", 5*time.Second), nil, nil)
	for _, bind := range []string{"0.0.0.0:0", "[::]:0"} {
		pc, err := net.ListenPacket("udp", bind)
		if err != nil {
			t.Logf("%s: %v", bind, err)
			continue
		}
		pc.Close()
		addr, r := serveUDP(t, s, bind)
		if !r.pktinfo {
			t.Errorf("%s: no packet info", bind)
		}
		port := netip.MustParseAddrPort(addr).Port()
		targets := []string{"127.0.0.1", "127.0.0.2", "127.0.0.3"}
		if bind == "[::]:0" {
			targets = append(targets, "::1")
		}
		for _, to := range targets {
			conn, err := net.Dial("udp", netip.AddrPortFrom(netip.MustParseAddr(to), port).String())
			if err != nil {
				t.Fatal(err)
			}
			q := new(mdns.Msg)
			q.SetQuestion("web.ns.svc.cluster.local.", mdns.TypeA)
			pkt, _ := q.Pack()
			for try := range 2 {
				resp := new(mdns.Msg)
				if err := resp.Unpack(exchange(t, conn, pkt)); err != nil || len(resp.Answer) != 1 {
					t.Errorf("%s via %s, try %d: %v %v", bind, to, try, resp, err)
				}
			}
			conn.Close()
		}
	}
}

// TestCachedMetrics: answers from the cache count in CoreDNS's series
// as computed ones do.
func TestCachedMetrics(t *testing.T) {
	x := NewIndex()
	x.SetService(&corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "web"}, Spec: corev1.ServiceSpec{ClusterIP: "10.96.0.20"}})
	s := NewServer(NewResolver(x, "cluster.local", 5*time.Second), nil, nil)
	addr, _ := serveUDP(t, s, "127.0.0.1:0")
	for range 3 {
		ask(t, "udp", addr, "web.ns.svc.cluster.local.", mdns.TypeA, 0)
		ask(t, "udp", addr, "nope.ns.svc.cluster.local.", mdns.TypeAAAA, 0)
	}
	body := scrape(t, s)
	for _, series := range []string{
		`coredns_dns_requests_total{family="1",proto="udp",server="dns://:53",type="A",view="",zone="."} 3`,
		`coredns_dns_requests_total{family="1",proto="udp",server="dns://:53",type="AAAA",view="",zone="."} 3`,
		`coredns_dns_responses_total{plugin="kubernetes",rcode="NOERROR",server="dns://:53",view="",zone="."} 3`,
		`coredns_dns_responses_total{plugin="kubernetes",rcode="NXDOMAIN",server="dns://:53",view="",zone="."} 3`,
		`coredns_dns_request_duration_seconds_count{server="dns://:53",type="A",view="",zone="."} 3`,
		`coredns_dns_request_size_bytes_count{proto="udp",server="dns://:53",view="",zone="."} 6`,
		`coredns_dns_response_size_bytes_count{proto="udp",server="dns://:53",view="",zone="."} 6`,
	} {
		if !strings.Contains(body, series) {
			t.Errorf("metrics lack %s", series)
		}
	}
}

// TestCachedAnswerAllocs: answering from the cache allocates nothing.
func TestCachedAnswerAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	x := NewIndex()
	x.SetService(&corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "web"}, Spec: corev1.ServiceSpec{ClusterIP: "10.96.0.20"}})
	s := NewServer(NewResolver(x, "cluster.local", 5*time.Second), nil, nil)
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close()
	r := newUDPReader(s, pc.(*net.UDPConn)) // its loop not running: answer is called here
	sink, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer sink.Close()
	q := new(mdns.Msg)
	q.SetQuestion("web.ns.svc.cluster.local.", mdns.TypeA)
	pkt, _ := q.Pack()
	peer := netip.MustParseAddrPort(sink.LocalAddr().String())
	r.answer(pkt, nil, peer) // computed, cached
	r.misses.Wait()
	if r.cache.len() != 1 {
		t.Fatalf("cache entries: %d, want 1", r.cache.len())
	}
	if got := testing.AllocsPerRun(100, func() { r.answer(pkt, nil, peer) }); got != 0 {
		t.Errorf("a cached answer allocated %v times", got)
	}
	buf := make([]byte, 512)
	for range 2 {
		_ = sink.SetReadDeadline(time.Now().Add(time.Second))
		if n, _, err := sink.ReadFrom(buf); err != nil || n < 12 || buf[7] != 1 {
			t.Errorf("the sink got no answer: %d %v", n, err)
		}
	}
}

// TestAnswerCacheBudget: the cache stays within its byte budget, drops
// an answer computed before the index changed, and empties when it does.
func TestAnswerCacheBudget(t *testing.T) {
	c := newAnswerCache()
	ans := &packedAnswer{buf: make([]byte, 100)}
	for i := range 100000 {
		c.put([]byte(fmt.Sprintf("question-%d", i)), 1, ans)
	}
	if c.bytes > answerCacheBudget || c.len() < answerCacheBudget/(200+entryOverhead) {
		t.Errorf("after 100,000 puts: %d entries, %d bytes (budget %d)", c.len(), c.bytes, answerCacheBudget)
	}
	if c.get([]byte("question-99999"), 1) != ans {
		t.Errorf("the last put is gone")
	}
	c.put([]byte("old"), 0, ans)
	if c.get([]byte("old"), 1) != nil {
		t.Errorf("an answer of an older generation was kept")
	}
	if c.get([]byte("question-99999"), 2) != nil || c.len() != 0 || c.bytes != 0 {
		t.Errorf("a new generation kept %d entries, %d bytes", c.len(), c.bytes)
	}
	c.put(make([]byte, answerCacheBudget), 2, ans)
	if c.len() != 0 {
		t.Errorf("an entry over the budget went in")
	}
}

// TestServeShutdown: Serve returns when its context ends, with the
// readers stopped.
func TestServeShutdown(t *testing.T) {
	s := NewServer(NewResolver(NewIndex(), "cluster.local", 5*time.Second), nil, nil)
	pcs, l, err := Listen("127.0.0.1:0", 2)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- s.Serve(ctx, pcs, l) }()
	ask(t, "udp", l.Addr().String(), "x.cluster.local.", mdns.TypeA, 0)
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Serve: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Serve did not return")
	}
}

// TestServedCachedAllocs: the socket's read loop (batched on Linux)
// answers repeated questions with next to no allocation: 4,000 cached
// answers, the client reusing its buffers, cost under 400 allocations in
// the whole process, where the tests before may still be winding down
// (computing one answer costs 15).
func TestServedCachedAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	x := NewIndex()
	x.SetService(&corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "web"}, Spec: corev1.ServiceSpec{ClusterIP: "10.96.0.20"}})
	addr, _ := serveUDP(t, NewServer(NewResolver(x, "cluster.local", 5*time.Second), nil, nil), "127.0.0.1:0")
	conn, err := net.Dial("udp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	q := new(mdns.Msg)
	q.SetQuestion("web.ns.svc.cluster.local.", mdns.TypeA)
	pkt, _ := q.Pack()
	exchange(t, conn, pkt) // computed, cached
	buf := make([]byte, 512)
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for i := range 4000 {
		pkt[0], pkt[1] = byte(i>>8), byte(i)
		if _, err := conn.Write(pkt); err != nil {
			t.Fatal(err)
		}
		if n, err := conn.Read(buf); err != nil || n < 12 || buf[1] != pkt[1] || buf[7] != 1 {
			t.Fatalf("answer %d: %x %v", i, buf[:n], err)
		}
	}
	runtime.ReadMemStats(&after)
	if n := after.Mallocs - before.Mallocs; n >= 400 {
		t.Errorf("4,000 cached answers: %d allocations", n)
	}
}
