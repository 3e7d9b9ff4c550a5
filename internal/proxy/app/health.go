package app

import (
	"sync"

	"github.com/svcplane/svcplane/internal/proxy"
	"github.com/svcplane/svcplane/internal/proxy/healthcheck"
	"github.com/svcplane/svcplane/internal/proxy/metrics"
)

// serviceSyncer is what serviceHealth drives (a
// *healthcheck.ServiceHealthServer).
type serviceSyncer interface {
	SyncServices(map[healthcheck.ServiceName]uint16) error
	SyncEndpoints(map[healthcheck.ServiceName]int)
}

// serviceHealth merges the families' health-checked Services into the one
// per-Service health server: a Service is served when either family has
// it, with the local endpoints of both families summed.
type serviceHealth struct {
	server    serviceSyncer
	mu        sync.Mutex
	services  map[proxy.IPFamily]map[healthcheck.ServiceName]uint16
	endpoints map[proxy.IPFamily]map[healthcheck.ServiceName]int
}

func newServiceHealth(s serviceSyncer) *serviceHealth {
	return &serviceHealth{server: s, services: map[proxy.IPFamily]map[healthcheck.ServiceName]uint16{},
		endpoints: map[proxy.IPFamily]map[healthcheck.ServiceName]int{}}
}

// update records the family's snapshot and syncs the server with the
// merge of every family's latest.
func (s *serviceHealth) update(fam proxy.IPFamily, snap *proxy.Snapshot) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.services[fam], s.endpoints[fam] = healthcheck.FromSnapshot(snap)
	services, endpoints := map[healthcheck.ServiceName]uint16{}, map[healthcheck.ServiceName]int{}
	for f := range s.services {
		for n, port := range s.services[f] {
			services[n] = port
		}
		for n, c := range s.endpoints[f] {
			endpoints[n] += c
		}
	}
	_ = s.server.SyncServices(services) // failures are logged and retried next sync
	s.server.SyncEndpoints(endpoints)
}

// countNoLocalEndpoints counts, as kube-proxy does for
// sync_proxy_rules_no_local_endpoints_total, the service ports with
// endpoints somewhere but none here for their Local internal (internal)
// or external (external) traffic policy.
func countNoLocalEndpoints(snap *proxy.Snapshot) (internal, external int) {
	for name, svc := range snap.Services {
		extLocal := svc.ExternalPolicyLocal && svc.ExternallyAccessible()
		if !svc.InternalPolicyLocal && !extLocal {
			continue
		}
		_, local, _, hasAny := proxy.CategorizeEndpoints(snap.Endpoints[name], svc, snap.Node)
		if !hasAny || len(local) > 0 {
			continue
		}
		if svc.InternalPolicyLocal {
			internal++
		}
		if extLocal {
			external++
		}
	}
	return internal, external
}

// noLocalGauge sums the families' counts into the gauge.
type noLocalGauge struct {
	m      *metrics.Metrics
	mu     sync.Mutex
	counts map[proxy.IPFamily][2]int
}

func (g *noLocalGauge) set(fam proxy.IPFamily, internal, external int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.counts[fam] = [2]int{internal, external}
	var sum [2]int
	for _, c := range g.counts {
		sum[0], sum[1] = sum[0]+c[0], sum[1]+c[1]
	}
	g.m.SyncProxyRulesNoLocalEPs.WithLabelValues("internal").Set(float64(sum[0]))
	g.m.SyncProxyRulesNoLocalEPs.WithLabelValues("external").Set(float64(sum[1]))
}
