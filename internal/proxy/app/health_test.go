package app

import (
	"net/netip"
	"testing"

	"github.com/svcplane/svcplane/internal/proxy"
	"github.com/svcplane/svcplane/internal/proxy/healthcheck"
)

func TestCountNoLocalEndpoints(t *testing.T) {
	name := func(n string) proxy.ServicePortName {
		return proxy.ServicePortName{Namespace: "ns", Name: n, Protocol: proxy.TCP}
	}
	remote := []proxy.Endpoint{{IP: netip.MustParseAddr("10.244.2.3"), Port: 80, Ready: true, Serving: true}}
	local := []proxy.Endpoint{{IP: netip.MustParseAddr("10.244.1.2"), Port: 80, Ready: true, Serving: true, IsLocal: true}}
	snap := &proxy.Snapshot{
		Services: map[proxy.ServicePortName]*proxy.ServicePort{
			name("int-remote"): {Name: name("int-remote"), InternalPolicyLocal: true},
			name("ext-remote"): {Name: name("ext-remote"), ExternalPolicyLocal: true, NodePort: 30001},
			name("ext-local"):  {Name: name("ext-local"), ExternalPolicyLocal: true, NodePort: 30002},
			name("ext-none"):   {Name: name("ext-none"), ExternalPolicyLocal: true, NodePort: 30003},
			name("cluster"):    {Name: name("cluster")},
		},
		Endpoints: map[proxy.ServicePortName][]proxy.Endpoint{
			name("int-remote"): remote, name("ext-remote"): remote, name("ext-local"): local, name("cluster"): remote,
		},
	}
	if internal, external := countNoLocalEndpoints(snap); internal != 1 || external != 1 {
		t.Errorf("internal=%d external=%d, want 1 and 1", internal, external)
	}
}

// recordingServer keeps what serviceHealth last synced.
type recordingServer struct {
	services  map[healthcheck.ServiceName]uint16
	endpoints map[healthcheck.ServiceName]int
}

func (r *recordingServer) SyncServices(s map[healthcheck.ServiceName]uint16) error {
	r.services = s
	return nil
}

func (r *recordingServer) SyncEndpoints(e map[healthcheck.ServiceName]int) { r.endpoints = e }

// healthSnapshot has Service ns/web with healthCheckNodePort 31000 (when
// port is set) and the given local ready endpoints.
func healthSnapshot(fam proxy.IPFamily, port uint16, local ...string) *proxy.Snapshot {
	name := proxy.ServicePortName{Namespace: "ns", Name: "web", Port: "http", Protocol: proxy.TCP}
	snap := &proxy.Snapshot{Family: fam,
		Services:  map[proxy.ServicePortName]*proxy.ServicePort{name: {Name: name, HealthCheckNodePort: port, ExternalPolicyLocal: true}},
		Endpoints: map[proxy.ServicePortName][]proxy.Endpoint{}}
	for _, a := range local {
		snap.Endpoints[name] = append(snap.Endpoints[name], proxy.Endpoint{IP: netip.MustParseAddr(a), Port: 80, Ready: true, Serving: true, IsLocal: true})
	}
	return snap
}

// TestServiceHealthMergesFamilies: a Service health-checked in either
// family is served, with the local endpoints of both families summed; a
// family's later snapshot replaces only that family's part.
func TestServiceHealthMergesFamilies(t *testing.T) {
	rec := &recordingServer{}
	h := newServiceHealth(rec)
	web := healthcheck.ServiceName{Namespace: "ns", Name: "web"}
	h.update(proxy.IPv4, healthSnapshot(proxy.IPv4, 31000, "10.244.1.2", "10.244.1.3"))
	if rec.services[web] != 31000 || rec.endpoints[web] != 2 {
		t.Fatalf("IPv4 only: services %v endpoints %v", rec.services, rec.endpoints)
	}
	h.update(proxy.IPv6, healthSnapshot(proxy.IPv6, 31000, "fd00:244::2"))
	if rec.services[web] != 31000 || rec.endpoints[web] != 3 {
		t.Errorf("both families: services %v endpoints %v, want port 31000 and 3 endpoints", rec.services, rec.endpoints)
	}
	h.update(proxy.IPv4, healthSnapshot(proxy.IPv4, 31000))
	if rec.endpoints[web] != 1 {
		t.Errorf("IPv4 endpoints gone: endpoints %v, want the IPv6 one", rec.endpoints)
	}
	h.update(proxy.IPv4, healthSnapshot(proxy.IPv4, 0))
	h.update(proxy.IPv6, healthSnapshot(proxy.IPv6, 0))
	if len(rec.services) != 0 {
		t.Errorf("no family health-checks the Service any more: %v", rec.services)
	}
}
