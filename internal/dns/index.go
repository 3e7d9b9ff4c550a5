package dns

import (
	"net/netip"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
)

// tolerateUnreadyAnnotation is the deprecated annotation the
// specification still honours for "ready".
const tolerateUnreadyAnnotation = "service.alpha.kubernetes.io/tolerate-unready-endpoints"

// key names a Service: lowercase namespace and name.
type key struct{ ns, name string }

// port is one Service port as SRV records need it.
type port struct {
	name  string // lowercase; "" for an unnamed port
	proto string // lowercase: tcp, udp, sctp
	num   uint16
}

// endpoint is one ready endpoint of a headless Service: its hostname (the
// endpoint's hostname field, else the address in dashed form) and its
// addresses.
type endpoint struct {
	hostname string
	addrs    []netip.Addr
}

// service is what the records of one Service need.
type service struct {
	key
	externalName string       // lowercase FQDN with the trailing dot; ExternalName only
	headless     bool         // ClusterIP None (or no cluster IP)
	clusterIPs   []netip.Addr // not headless
	ports        []port
	// publishNotReady: every endpoint counts as ready.
	publishNotReady bool
	// endpoints are the ready ones (headless only), sorted by hostname.
	endpoints []endpoint
}

// Index is the DNS's view of the cluster. The zero value is not usable:
// use NewIndex. Safe for concurrent use.
type Index struct {
	mu sync.RWMutex
	// gen changes (under mu) with every change an answer can see; the
	// server's packed answers are valid for one generation.
	gen        atomic.Uint64
	services   map[key]*service
	slices     map[key]map[string]*slice
	namespaces map[string]int // namespace → number of Services in it
	ptr        map[netip.Addr][]string
	ptrOwned   map[key][]netip.Addr
}

// NewIndex returns an empty index.
func NewIndex() *Index {
	return &Index{
		services:   map[key]*service{},
		slices:     map[key]map[string]*slice{},
		namespaces: map[string]int{},
		ptr:        map[netip.Addr][]string{},
		ptrOwned:   map[key][]netip.Addr{},
	}
}

func keyOf(ns, name string) key { return key{strings.ToLower(ns), strings.ToLower(name)} }

// SetService adds or replaces svc.
func (x *Index) SetService(svc *corev1.Service) {
	k := keyOf(svc.Namespace, svc.Name)
	s := &service{key: k, publishNotReady: svc.Spec.PublishNotReadyAddresses ||
		svc.Annotations[tolerateUnreadyAnnotation] == "true"}
	switch {
	case svc.Spec.Type == corev1.ServiceTypeExternalName:
		s.externalName = fqdn(strings.ToLower(svc.Spec.ExternalName))
	default:
		for _, ip := range clusterIPsOf(svc) {
			if a, err := netip.ParseAddr(ip); err == nil {
				s.clusterIPs = append(s.clusterIPs, a.Unmap())
			}
		}
		s.headless = len(s.clusterIPs) == 0
	}
	for _, p := range svc.Spec.Ports {
		proto := strings.ToLower(string(p.Protocol))
		if proto == "" {
			proto = "tcp"
		}
		s.ports = append(s.ports, port{name: strings.ToLower(p.Name), proto: proto, num: uint16(p.Port)})
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if _, ok := x.services[k]; !ok {
		x.namespaces[k.ns]++
	}
	x.services[k] = s
	x.rebuild(k)
	x.gen.Add(1)
}

// DeleteService forgets the Service ns/name.
func (x *Index) DeleteService(ns, name string) {
	k := keyOf(ns, name)
	x.mu.Lock()
	defer x.mu.Unlock()
	if _, ok := x.services[k]; !ok {
		return
	}
	delete(x.services, k)
	if x.namespaces[k.ns]--; x.namespaces[k.ns] <= 0 {
		delete(x.namespaces, k.ns)
	}
	x.rebuild(k)
	x.gen.Add(1)
}

// SetEndpointSlice adds or replaces a slice of the Service its
// kubernetes.io/service-name label names (a slice without it is ignored).
func (x *Index) SetEndpointSlice(es *discoveryv1.EndpointSlice) { x.setSlice(compactSlice(es)) }

// DeleteEndpointSlice forgets a slice.
func (x *Index) DeleteEndpointSlice(es *discoveryv1.EndpointSlice) {
	x.deleteSlice(&slice{ObjectMeta: es.ObjectMeta, service: es.Labels[discoveryv1.LabelServiceName]})
}

func (x *Index) setSlice(es *slice) {
	if es.service == "" {
		return
	}
	k := keyOf(es.Namespace, es.service)
	x.mu.Lock()
	defer x.mu.Unlock()
	m := x.slices[k]
	if m == nil {
		m = map[string]*slice{}
		x.slices[k] = m
	}
	m[es.Name] = es
	x.rebuild(k)
	x.slicesChanged(k)
}

func (x *Index) deleteSlice(es *slice) {
	k := keyOf(es.Namespace, es.service)
	x.mu.Lock()
	defer x.mu.Unlock()
	if m := x.slices[k]; m != nil {
		delete(m, es.Name)
		if len(m) == 0 {
			delete(x.slices, k)
		}
	}
	x.rebuild(k)
	x.slicesChanged(k)
}

// slicesChanged moves to a new generation when k's endpoints are in its
// answers: only a headless Service's are (a ClusterIP Service answers
// with its cluster IPs; a Service not indexed yet, not at all), so the
// endpoint churn of ClusterIP Services keeps the packed answers. x.mu held.
func (x *Index) slicesChanged(k key) {
	if s := x.services[k]; s != nil && s.headless {
		x.gen.Add(1)
	}
}

// Generation identifies the index's content as answers see it: equal
// generations answer every question alike.
func (x *Index) Generation() uint64 { return x.gen.Load() }

// rebuild recomputes k's ready endpoints and reverse records. x.mu held.
func (x *Index) rebuild(k key) {
	for _, a := range x.ptrOwned[k] {
		x.ptr[a] = removeString(x.ptr[a], k)
		if len(x.ptr[a]) == 0 {
			delete(x.ptr, a)
		}
	}
	delete(x.ptrOwned, k)
	s := x.services[k]
	if s == nil {
		return
	}
	s.endpoints = nil
	var owned []netip.Addr
	addPTR := func(a netip.Addr, name string) {
		x.ptr[a] = append(x.ptr[a], name)
		owned = append(owned, a)
	}
	svcName := s.fqdnIn("")
	for _, a := range s.clusterIPs {
		addPTR(a, svcName)
	}
	if s.headless {
		s.endpoints = readyEndpoints(x.slices[k], s.publishNotReady)
		for _, e := range s.endpoints {
			for _, a := range e.addrs {
				addPTR(a, e.hostname+"."+svcName)
			}
		}
	}
	x.ptrOwned[k] = owned
}

// removeString drops the reverse names of k from names. The names of a
// Service end in "<name>.<ns>.svc." (zone not included).
func removeString(names []string, k key) []string {
	suffix := k.name + "." + k.ns + ".svc."
	out := names[:0]
	for _, n := range names {
		if n != suffix && !strings.HasSuffix(n, "."+suffix) {
			out = append(out, n)
		}
	}
	return out
}

// readyEndpoints merges the slices' ready endpoints (every one with
// publishNotReady), one entry per hostname with its distinct addresses.
func readyEndpoints(slices map[string]*slice, publishNotReady bool) []endpoint {
	byHost := map[string]*endpoint{}
	seen := map[netip.Addr]bool{}
	for _, es := range slices {
		for _, r := range es.rows {
			if (!publishNotReady && !r.ready) || seen[r.addr] {
				continue
			}
			seen[r.addr] = true
			host := r.hostname
			if host == "" {
				host = dashed(r.addr)
			}
			e := byHost[host]
			if e == nil {
				e = &endpoint{hostname: host}
				byHost[host] = e
			}
			e.addrs = append(e.addrs, r.addr)
		}
	}
	out := make([]endpoint, 0, len(byHost))
	for _, e := range byHost {
		sort.Slice(e.addrs, func(i, j int) bool { return e.addrs[i].Less(e.addrs[j]) })
		out = append(out, *e)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].hostname < out[j].hostname })
	return out
}

// clusterIPsOf returns the Service's cluster IPs (spec.clusterIPs, else
// spec.clusterIP), none for a headless one.
func clusterIPsOf(svc *corev1.Service) []string {
	ips := svc.Spec.ClusterIPs
	if len(ips) == 0 && svc.Spec.ClusterIP != "" {
		ips = []string{svc.Spec.ClusterIP}
	}
	if len(ips) > 0 && ips[0] == corev1.ClusterIPNone {
		return nil
	}
	return ips
}

// fqdnIn is "<name>.<ns>.svc.<zone>" (zone with its trailing dot, or ""
// for the zone-relative form ending in "svc.").
func (s *service) fqdnIn(zone string) string { return s.name + "." + s.ns + ".svc." + zone }

// lookup returns the Service ns/name (lowercase).
func (x *Index) lookup(ns, name string) (service, bool) {
	s, ok := x.services[key{ns, name}]
	if !ok {
		return service{}, false
	}
	return *s, true
}

// hasNamespace reports whether any Service lives in ns (lowercase).
func (x *Index) hasNamespace(ns string) bool { return x.namespaces[ns] > 0 }

// reverse returns the zone-relative names whose address is a.
func (x *Index) reverse(a netip.Addr) []string { return x.ptr[a] }

// Len returns the number of Services indexed.
func (x *Index) Len() int {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return len(x.services)
}
