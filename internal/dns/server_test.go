package dns

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	mdns "github.com/miekg/dns"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// serve runs s on loopback UDP and TCP sockets until the test ends and
// returns their address.
func serve(t *testing.T, s *Server) string {
	t.Helper()
	pcs, l, err := Listen("127.0.0.1:0", 2)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = s.Serve(ctx, pcs, l) }()
	t.Cleanup(func() { cancel(); <-done })
	return l.Addr().String()
}

func ask(t *testing.T, network, addr, name string, qtype uint16, edns uint16) *mdns.Msg {
	t.Helper()
	m := new(mdns.Msg)
	m.SetQuestion(name, qtype)
	if edns > 0 {
		m.SetEdns0(edns, false)
	}
	c := &mdns.Client{Net: network, Timeout: 2 * time.Second, UDPSize: 65535}
	resp, _, err := c.Exchange(m, addr)
	if err != nil {
		t.Fatalf("%s %s: %v", network, name, err)
	}
	return resp
}

// bigHeadless is a headless Service with n ready endpoints.
func bigHeadless(x *Index, n int) {
	x.SetService(&corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "big"},
		Spec: corev1.ServiceSpec{ClusterIP: corev1.ClusterIPNone}})
	es := &discoveryv1.EndpointSlice{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "big-1",
		Labels: map[string]string{discoveryv1.LabelServiceName: "big"}}, AddressType: discoveryv1.AddressTypeIPv4}
	for i := range n {
		es.Endpoints = append(es.Endpoints, discoveryv1.Endpoint{Addresses: []string{fmt.Sprintf("10.244.%d.%d", i/250, i%250+1)}})
	}
	x.SetEndpointSlice(es)
}

// TestTruncation: a headless answer too big for UDP is truncated (TC
// set) to 512 bytes, or to the client's EDNS0 size; over TCP it is whole.
func TestTruncation(t *testing.T) {
	x := NewIndex()
	bigHeadless(x, 100)
	addr := serve(t, NewServer(NewResolver(x, "cluster.local", 5*time.Second), nil, nil))
	name := "big.ns.svc.cluster.local."
	udp := ask(t, "udp", addr, name, mdns.TypeA, 0)
	udp.Compress = true // as it was on the wire
	if !udp.Truncated || udp.Len() > 512 {
		t.Errorf("UDP without EDNS0: truncated=%v size=%d, want TC and ≤ 512", udp.Truncated, udp.Len())
	}
	edns := ask(t, "udp", addr, name, mdns.TypeA, 1232)
	edns.Compress = true
	if !edns.Truncated || edns.Len() > 1232 || len(edns.Answer) <= len(udp.Answer) {
		t.Errorf("UDP with EDNS0 1232: truncated=%v size=%d answers=%d", edns.Truncated, edns.Len(), len(edns.Answer))
	}
	if edns.IsEdns0() == nil {
		t.Errorf("an EDNS0 question got no OPT record back")
	}
	tcp := ask(t, "tcp", addr, name, mdns.TypeA, 0)
	if tcp.Truncated || len(tcp.Answer) != 100 {
		t.Errorf("TCP: truncated=%v answers=%d, want all 100", tcp.Truncated, len(tcp.Answer))
	}
}

// TestBadInput: malformed packets, a 100-label name, an unknown EDNS
// version, several questions, a non-query opcode and a flood from one
// client get an error answer or none, and the server keeps answering.
func TestBadInput(t *testing.T) {
	x := NewIndex()
	x.SetService(&corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "web"},
		Spec: corev1.ServiceSpec{ClusterIP: "10.96.0.20"}})
	s := NewServer(NewResolver(x, "cluster.local", 5*time.Second), nil, nil)
	addr := serve(t, s)
	conn, err := net.Dial("udp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for _, junk := range [][]byte{{}, {0x12}, []byte("not dns at all, not even close"), make([]byte, 12), make([]byte, 4000)} {
		_, _ = conn.Write(junk)
	}
	long := strings.Repeat("a.", 100) + "cluster.local."
	if r := ask(t, "udp", addr, long, mdns.TypeA, 0); r.Rcode != mdns.RcodeNameError {
		t.Errorf("100 labels: rcode %s, want NXDOMAIN", mdns.RcodeToString[r.Rcode])
	}
	m := new(mdns.Msg)
	m.SetQuestion("web.ns.svc.cluster.local.", mdns.TypeA)
	m.SetEdns0(1232, false)
	m.IsEdns0().SetVersion(1)
	if r, _, err := (&mdns.Client{}).Exchange(m, addr); err != nil || r.Rcode != mdns.RcodeBadVers {
		t.Errorf("EDNS version 1: %v %v, want BADVERS", r, err)
	}
	m = new(mdns.Msg)
	m.SetQuestion("web.ns.svc.cluster.local.", mdns.TypeA)
	m.Question = append(m.Question, m.Question[0])
	if r, _, err := (&mdns.Client{}).Exchange(m, addr); err != nil || r.Rcode != mdns.RcodeFormatError {
		t.Errorf("two questions: %v %v, want FORMERR", r, err)
	}
	m = new(mdns.Msg)
	m.SetQuestion("web.ns.svc.cluster.local.", mdns.TypeA)
	m.Opcode = mdns.OpcodeStatus
	if r, _, err := (&mdns.Client{}).Exchange(m, addr); err != nil || r.Rcode != mdns.RcodeNotImplemented {
		t.Errorf("opcode STATUS: %v %v, want NOTIMP", r, err)
	}
	// A flood from one client (50,000 questions as fast as it can) while
	// another asks.
	var wg sync.WaitGroup
	stop := make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		q := new(mdns.Msg)
		q.SetQuestion("web.ns.svc.cluster.local.", mdns.TypeA)
		pkt, _ := q.Pack()
		for range 50000 {
			select {
			case <-stop:
				return
			default:
				_, _ = conn.Write(pkt)
			}
		}
	}()
	// The kernel drops what overflows the socket's buffer, for every
	// client: the others get their answers as a stub resolver does, by
	// asking again (glibc: 5 s, 2 attempts; here 300 ms, up to 10 —
	// longer than the flood lasts).
	c := &mdns.Client{Timeout: 300 * time.Millisecond}
	lost := 0
	for range 20 {
		q := new(mdns.Msg)
		q.SetQuestion("web.ns.svc.cluster.local.", mdns.TypeA)
		var r *mdns.Msg
		for range 10 {
			if r, _, err = c.Exchange(q, addr); err == nil {
				break
			}
			lost++
		}
		if r == nil || len(r.Answer) != 1 {
			t.Errorf("during a flood: %v %v", r, err)
		}
	}
	t.Logf("20 questions during a flood from another client: %d tries lost", lost)
	close(stop)
	wg.Wait()
	if r := ask(t, "tcp", addr, "web.ns.svc.cluster.local.", mdns.TypeA, 0); len(r.Answer) != 1 {
		t.Errorf("after the flood: %v", r)
	}
}

// fakeUpstream is a resolver on loopback that answers every A question
// with 192.0.2.1 and counts them.
func fakeUpstream(t *testing.T) (addr string, asked func() int) {
	t.Helper()
	var mu sync.Mutex
	n := 0
	h := mdns.HandlerFunc(func(w mdns.ResponseWriter, r *mdns.Msg) {
		mu.Lock()
		n++
		mu.Unlock()
		m := new(mdns.Msg)
		m.SetReply(r)
		if r.Question[0].Qtype == mdns.TypeA {
			rr, _ := mdns.NewRR(r.Question[0].Name + " 300 IN A 192.0.2.1")
			m.Answer = append(m.Answer, rr)
		}
		_ = w.WriteMsg(m)
	})
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &mdns.Server{PacketConn: pc, Handler: h}
	go func() { _ = srv.ActivateAndServe() }()
	t.Cleanup(func() { _ = srv.Shutdown() })
	return pc.LocalAddr().String(), func() int { mu.Lock(); defer mu.Unlock(); return n }
}

// TestForwarding: names outside the zone and unknown reverse names go to
// the upstream; an ExternalName's CNAME is followed by the target's
// records from it; cluster names never leave.
func TestForwarding(t *testing.T) {
	up, asked := fakeUpstream(t)
	x := NewIndex()
	x.SetService(&corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "ext"},
		Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeExternalName, ExternalName: "www.example.com"}})
	upstreams, err := ParseForward(up, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	s := NewServer(NewResolver(x, "cluster.local", 5*time.Second), upstreams, nil)
	addr := serve(t, s)
	if r := ask(t, "udp", addr, "example.org.", mdns.TypeA, 0); len(r.Answer) != 1 || r.Authoritative {
		t.Errorf("forwarded: %v", r)
	}
	r := ask(t, "udp", addr, "ext.ns.svc.cluster.local.", mdns.TypeA, 0)
	if len(r.Answer) != 2 || r.Answer[0].Header().Rrtype != mdns.TypeCNAME || r.Answer[1].(*mdns.A).A.String() != "192.0.2.1" {
		t.Errorf("ExternalName: %v", r)
	}
	before := asked()
	if r := ask(t, "udp", addr, "missing.ns.svc.cluster.local.", mdns.TypeA, 0); r.Rcode != mdns.RcodeNameError {
		t.Errorf("cluster name: %v", r)
	}
	if asked() != before {
		t.Errorf("a cluster name was forwarded")
	}
	body := scrape(t, s)
	for _, series := range []string{
		`coredns_dns_requests_total{family="1",proto="udp",server="dns://:53",type="A",view="",zone="."} 3`,
		`coredns_dns_responses_total{plugin="kubernetes",rcode="NXDOMAIN",server="dns://:53",view="",zone="."} 1`,
		`coredns_dns_responses_total{plugin="forward",rcode="NOERROR",server="dns://:53",view="",zone="."} 1`,
		`coredns_forward_requests_total{to="` + up + `"} 2`,
		`coredns_dns_request_duration_seconds_bucket{server="dns://:53",type="A",view="",zone=".",le="+Inf"} 3`,
		"process_resident_memory_bytes", "coredns_build_info",
	} {
		if !strings.Contains(body, series) {
			t.Errorf("metrics lack %s", series)
		}
	}
}

func scrape(t *testing.T, s *Server) string {
	t.Helper()
	srv := httptest.NewServer(s.HTTPHandler())
	defer srv.Close()
	resp, err := srv.Client().Get(srv.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

// TestHealthReady: /health is OK at once; /ready is 503 "kubernetes"
// until the index has synced, as CoreDNS's ready plugin.
func TestHealthReady(t *testing.T) {
	ready := false
	s := NewServer(NewResolver(NewIndex(), "", 5*time.Second), nil, func() bool { return ready })
	srv := httptest.NewServer(s.HTTPHandler())
	defer srv.Close()
	get := func(path string) (int, string) {
		resp, err := srv.Client().Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if c, b := get("/health"); c != 200 || b != "OK" {
		t.Errorf("/health: %d %q", c, b)
	}
	if c, b := get("/ready"); c != 503 || b != "kubernetes" {
		t.Errorf("/ready before sync: %d %q", c, b)
	}
	ready = true
	if c, b := get("/ready"); c != 200 || b != "OK" {
		t.Errorf("/ready after sync: %d %q", c, b)
	}
}

// TestParseForward: "none", explicit upstreams with and without ports,
// resolv.conf, bad input, and this server itself dropped.
func TestParseForward(t *testing.T) {
	dir := t.TempDir()
	conf := dir + "/resolv.conf"
	if err := writeFile(conf, "nameserver 127.0.0.53\nnameserver 10.96.0.10\noptions edns0\n"); err != nil {
		t.Fatal(err)
	}
	self := []netip.AddrPort{netip.MustParseAddrPort("10.96.0.10:53")}
	for _, c := range []struct {
		flag, want, err string
	}{
		{flag: "none", want: ""},
		{flag: "", want: "127.0.0.53:53"},
		{flag: "192.0.2.1, 192.0.2.2:5353", want: "192.0.2.1:53,192.0.2.2:5353"},
		{flag: "[2001:db8::1]:53", want: "[2001:db8::1]:53"},
		{flag: "dns.example", err: `"dns.example" is not an IP address`},
		{flag: "10.96.0.10", err: "every upstream (10.96.0.10:53) is this server itself"},
	} {
		got, err := ParseForward(c.flag, conf, self)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%q: err %v, want %q", c.flag, err, c.err)
			}
			continue
		}
		if err != nil || strings.Join(got, ",") != c.want {
			t.Errorf("%q: %v %v, want %s", c.flag, got, err, c.want)
		}
	}
}
