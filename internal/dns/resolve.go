package dns

import (
	"net/netip"
	"strings"
	"time"

	mdns "github.com/miekg/dns"
)

// SchemaVersion is the Kubernetes DNS schema answered at dns-version.<zone>.
const SchemaVersion = "1.1.0"

// DNSService is the Service whose cluster IPs answer ns.dns.<zone>, the
// zone's name server.
var DNSService = struct{ Namespace, Name string }{"kube-system", "kube-dns"}

// Answer is a response's content.
type Answer struct {
	Rcode  int
	Answer []mdns.RR
	Ns     []mdns.RR
	Extra  []mdns.RR
	// Chase is the target of an ExternalName CNAME outside the zone: its
	// records of the asked type belong after the CNAME (the server
	// forwards for them).
	Chase string
}

// Resolver answers questions inside the cluster zone and for the reverse
// names of the addresses it knows, from an Index.
type Resolver struct {
	Index *Index
	// Zone is the cluster domain, lowercase with the trailing dot.
	Zone string
	// TTL of every record (CoreDNS's kubernetes plugin: 5 s).
	TTL uint32
	// Serial of the zone's SOA.
	Serial uint32
}

// NewResolver answers for zone (cluster.local by default) with ttl.
func NewResolver(x *Index, zone string, ttl time.Duration) *Resolver {
	if zone == "" {
		zone = "cluster.local"
	}
	return &Resolver{Index: x, Zone: fqdn(strings.ToLower(zone)), TTL: uint32(ttl / time.Second),
		Serial: uint32(time.Now().Unix())}
}

// InZone reports whether name (any case) is the zone or below it.
func (r *Resolver) InZone(name string) bool {
	_, ok := inZone(strings.ToLower(fqdn(name)), r.Zone)
	return ok
}

// Zone answers owner (the question's name, kept as asked) of type qtype;
// ok is false when owner is not in the zone.
func (r *Resolver) ZoneAnswer(owner string, qtype uint16) (Answer, bool) {
	labels, ok := inZone(strings.ToLower(fqdn(owner)), r.Zone)
	if !ok {
		return Answer{}, false
	}
	r.Index.mu.RLock()
	defer r.Index.mu.RUnlock()
	var a Answer
	switch n := len(labels); {
	case n == 0:
		a = r.apex(owner, qtype)
	case n == 1 && labels[0] == "dns-version":
		a = r.only(qtype, mdns.TypeTXT, &mdns.TXT{Hdr: r.hdr(owner, mdns.TypeTXT), Txt: []string{SchemaVersion}})
	case labels[n-1] == "svc":
		a = r.svc(owner, labels[:n-1], qtype)
	case labels[n-1] == "pod":
		a = r.pod(owner, labels[:n-1], qtype)
	case n == 2 && labels[0] == "ns" && labels[1] == "dns":
		a = r.addrs(owner, qtype, r.nameServerAddrs())
	case n == 1 && labels[0] == "dns":
		a = r.noData()
	default:
		a = r.nxdomain()
	}
	return a, true
}

// ReverseAnswer answers a PTR question for a full reverse name whose
// address is a cluster IP or a headless endpoint; ok is false otherwise
// (the name is not the cluster's: forward it).
func (r *Resolver) ReverseAnswer(owner string, qtype uint16) (Answer, bool) {
	addr, ok := reverseAddr(strings.ToLower(fqdn(owner)))
	if !ok {
		return Answer{}, false
	}
	r.Index.mu.RLock()
	defer r.Index.mu.RUnlock()
	names := r.Index.reverse(addr)
	if len(names) == 0 {
		return Answer{}, false
	}
	if qtype != mdns.TypePTR && qtype != mdns.TypeANY {
		return r.noData(), true
	}
	var a Answer
	for _, n := range names {
		a.Answer = append(a.Answer, &mdns.PTR{Hdr: r.hdr(owner, mdns.TypePTR), Ptr: n + r.Zone})
	}
	return a, true
}

func (r *Resolver) apex(owner string, qtype uint16) Answer {
	switch qtype {
	case mdns.TypeSOA:
		return Answer{Answer: []mdns.RR{r.soa()}}
	case mdns.TypeNS:
		a := Answer{Answer: []mdns.RR{&mdns.NS{Hdr: r.hdr(owner, mdns.TypeNS), Ns: "ns.dns." + r.Zone}}}
		for _, ip := range r.nameServerAddrs() {
			a.Extra = append(a.Extra, r.addrRR("ns.dns."+r.Zone, ip))
		}
		return a
	}
	return r.noData()
}

// svc answers the names under svc.<zone>: labels are what is left of
// "svc", e.g. [web shop] or [_http _tcp web shop] or [pod-0 web shop].
func (r *Resolver) svc(owner string, labels []string, qtype uint16) Answer {
	switch len(labels) {
	case 0: // svc.<zone>
		return r.noData()
	case 1: // <ns>.svc.<zone>
		if r.Index.hasNamespace(labels[0]) {
			return r.noData()
		}
		return r.nxdomain()
	case 2:
		s, ok := r.Index.lookup(labels[1], labels[0])
		if !ok {
			return r.nxdomain()
		}
		return r.service(owner, &s, qtype)
	case 3:
		s, ok := r.Index.lookup(labels[2], labels[1])
		if !ok || !s.headless {
			return r.nxdomain()
		}
		for _, e := range s.endpoints {
			if e.hostname == labels[0] {
				return r.addrs(owner, qtype, e.addrs)
			}
		}
		return r.nxdomain()
	case 4:
		portName, proto := labels[0], labels[1]
		if !strings.HasPrefix(portName, "_") || !strings.HasPrefix(proto, "_") {
			return r.nxdomain()
		}
		s, ok := r.Index.lookup(labels[3], labels[2])
		if !ok || s.externalName != "" {
			return r.nxdomain()
		}
		var ports []port
		for _, p := range s.ports {
			if p.name != "" && "_"+p.name == portName && "_"+p.proto == proto {
				ports = append(ports, p)
			}
		}
		if len(ports) == 0 || (s.headless && len(s.endpoints) == 0) {
			return r.nxdomain()
		}
		if qtype != mdns.TypeSRV && qtype != mdns.TypeANY {
			return r.noData()
		}
		return r.srv(owner, &s, ports)
	}
	return r.nxdomain()
}

// service answers <name>.<ns>.svc.<zone>.
func (r *Resolver) service(owner string, s *service, qtype uint16) Answer {
	if s.externalName != "" {
		a := Answer{Answer: []mdns.RR{&mdns.CNAME{Hdr: r.hdr(owner, mdns.TypeCNAME), Target: s.externalName}}}
		if qtype == mdns.TypeCNAME {
			return a
		}
		if labels, ok := inZone(s.externalName, r.Zone); ok {
			// An in-zone target: its records, from the index (one level:
			// an ExternalName pointing at another is not followed).
			if len(labels) != 3 || labels[2] != "svc" {
				return a
			}
			if t, ok := r.Index.lookup(labels[1], labels[0]); ok && t.externalName == "" {
				more := r.service(s.externalName, &t, qtype)
				a.Answer = append(a.Answer, more.Answer...)
			}
			return a
		}
		a.Chase = s.externalName
		return a
	}
	var named []port
	for _, p := range s.ports {
		if p.name != "" {
			named = append(named, p)
		}
	}
	if s.headless {
		if len(s.endpoints) == 0 {
			return r.nxdomain()
		}
		if qtype == mdns.TypeSRV {
			if len(named) == 0 {
				return r.noData()
			}
			return r.srv(owner, s, named)
		}
		var addrs []netip.Addr
		for _, e := range s.endpoints {
			addrs = append(addrs, e.addrs...)
		}
		return r.addrs(owner, qtype, addrs)
	}
	if qtype == mdns.TypeSRV {
		if len(named) == 0 {
			return r.noData()
		}
		return r.srv(owner, s, named)
	}
	return r.addrs(owner, qtype, s.clusterIPs)
}

// srv is one SRV record per port (a ClusterIP Service: its own name as
// the target) or per ready endpoint and port (headless: the endpoint's
// hostname), with the targets' addresses as additional records.
func (r *Resolver) srv(owner string, s *service, ports []port) Answer {
	var a Answer
	type target struct {
		name  string
		addrs []netip.Addr
	}
	targets := []target{{s.fqdnIn(r.Zone), s.clusterIPs}}
	if s.headless {
		targets = targets[:0]
		for _, e := range s.endpoints {
			targets = append(targets, target{e.hostname + "." + s.fqdnIn(r.Zone), e.addrs})
		}
	}
	weight := uint16(max(100/len(targets), 1))
	for _, p := range ports {
		for _, t := range targets {
			a.Answer = append(a.Answer, &mdns.SRV{Hdr: r.hdr(owner, mdns.TypeSRV), Priority: 0, Weight: weight, Port: p.num, Target: t.name})
		}
	}
	for _, t := range targets {
		for _, ip := range t.addrs {
			a.Extra = append(a.Extra, r.addrRR(t.name, ip))
		}
	}
	return a
}

// pod answers the deprecated <a>-<b>-<c>-<d>.<ns>.pod.<zone> records (any
// address, as CoreDNS's "pods insecure").
func (r *Resolver) pod(owner string, labels []string, qtype uint16) Answer {
	switch len(labels) {
	case 0, 1:
		return r.noData()
	case 2:
		if addr, ok := undashed(labels[0]); ok {
			return r.addrs(owner, qtype, []netip.Addr{addr})
		}
	}
	return r.nxdomain()
}

// addrs answers A or AAAA with the addresses of that family; NODATA for
// other types or when none is of the asked family.
func (r *Resolver) addrs(owner string, qtype uint16, addrs []netip.Addr) Answer {
	var a Answer
	for _, ip := range addrs {
		if (qtype == mdns.TypeA || qtype == mdns.TypeANY) && ip.Is4() ||
			(qtype == mdns.TypeAAAA || qtype == mdns.TypeANY) && ip.Is6() {
			a.Answer = append(a.Answer, r.addrRR(owner, ip))
		}
	}
	if len(a.Answer) == 0 {
		return r.noData()
	}
	return a
}

func (r *Resolver) addrRR(owner string, ip netip.Addr) mdns.RR {
	if ip.Is4() {
		return &mdns.A{Hdr: r.hdr(owner, mdns.TypeA), A: ip.AsSlice()}
	}
	return &mdns.AAAA{Hdr: r.hdr(owner, mdns.TypeAAAA), AAAA: ip.AsSlice()}
}

// only answers rr when qtype is its type (or ANY), NODATA otherwise.
func (r *Resolver) only(qtype, rrtype uint16, rr mdns.RR) Answer {
	if qtype == rrtype || qtype == mdns.TypeANY {
		return Answer{Answer: []mdns.RR{rr}}
	}
	return r.noData()
}

// nameServerAddrs are the cluster IPs of the DNS Service.
func (r *Resolver) nameServerAddrs() []netip.Addr {
	s, ok := r.Index.lookup(DNSService.Namespace, DNSService.Name)
	if !ok {
		return nil
	}
	return s.clusterIPs
}

func (r *Resolver) hdr(owner string, t uint16) mdns.RR_Header {
	return mdns.RR_Header{Name: owner, Rrtype: t, Class: mdns.ClassINET, Ttl: r.TTL}
}

func (r *Resolver) soa() mdns.RR {
	return &mdns.SOA{Hdr: r.hdr(r.Zone, mdns.TypeSOA), Ns: "ns.dns." + r.Zone, Mbox: "hostmaster." + r.Zone,
		Serial: r.Serial, Refresh: 7200, Retry: 1800, Expire: 86400, Minttl: r.TTL}
}

// noData is NOERROR with no answer and the SOA (RFC 2308).
func (r *Resolver) noData() Answer { return Answer{Rcode: mdns.RcodeSuccess, Ns: []mdns.RR{r.soa()}} }

func (r *Resolver) nxdomain() Answer {
	return Answer{Rcode: mdns.RcodeNameError, Ns: []mdns.RR{r.soa()}}
}
