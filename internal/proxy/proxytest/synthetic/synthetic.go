package synthetic

import (
	"net/netip"
	"strconv"

	"github.com/svcplane/svcplane/internal/proxy"
)

// Node is the proxy's own node in the snapshots.
const Node = "bench"

// Snapshot is the benchmarks' cluster: Service i (bench/svc-<i>, port
// "http") has ClusterIP 10.96.x.y:80/TCP and endpoints 10.(128+…).…:8080
// spread over the pod range and, round-robin, over nodes nodes
// (Node, the proxy's own, is node 0; nodes 0 = no node names).
func Snapshot(services, endpoints, nodes int) *proxy.Snapshot {
	s := &proxy.Snapshot{Family: proxy.IPv4, Services: map[proxy.ServicePortName]*proxy.ServicePort{},
		Endpoints: map[proxy.ServicePortName][]proxy.Endpoint{}, Node: proxy.Node{Name: Node}}
	next := uint32(10<<24 | 128<<16)
	for i := 0; i < services; i++ {
		name := Name("svc-" + strconv.Itoa(i))
		s.Services[name] = &proxy.ServicePort{Name: name, Protocol: proxy.TCP, Port: 80, ClusterIP: Addr4(10<<24 | 96<<16 | uint32(i+1))}
		eps := make([]proxy.Endpoint, endpoints)
		for j := range eps {
			next++
			eps[j] = proxy.Endpoint{IP: Addr4(next), Port: 8080, Ready: true, Serving: true}
			if nodes > 0 {
				if k := int(next) % nodes; k == 0 {
					eps[j].NodeName, eps[j].IsLocal = Node, true
				} else {
					eps[j].NodeName = "node-" + strconv.Itoa(k)
				}
			}
		}
		s.Endpoints[name] = eps
	}
	return s
}

// Name is the port name of Service bench/<name> in the
// snapshots.
func Name(name string) proxy.ServicePortName {
	return proxy.ServicePortName{Namespace: "bench", Name: name, Port: "http", Protocol: proxy.TCP}
}

// Addr4 is the IPv4 address of v.
func Addr4(v uint32) netip.Addr {
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)})
}

// WithChange copies the maps of s (the snapshot's contract: never mutate),
// lets change edit the copy and names changed in its Changes, as the
// tracker does.
func WithChange(s *proxy.Snapshot, changed proxy.ServicePortName, change func(*proxy.Snapshot)) *proxy.Snapshot {
	c := *s
	c.Changes = &proxy.ChangeSet{Ports: map[proxy.ServicePortName]struct{}{changed: {}}}
	c.Services = make(map[proxy.ServicePortName]*proxy.ServicePort, len(s.Services)+1)
	c.Endpoints = make(map[proxy.ServicePortName][]proxy.Endpoint, len(s.Endpoints)+1)
	for k, v := range s.Services {
		c.Services[k] = v
	}
	for k, v := range s.Endpoints {
		c.Endpoints[k] = v
	}
	change(&c)
	return &c
}

// MoveFirstEndpoint is the benchmarks' "one endpoint change": the first
// endpoint of name gets a new address.
func MoveFirstEndpoint(s *proxy.Snapshot, name proxy.ServicePortName) *proxy.Snapshot {
	return WithChange(s, name, func(c *proxy.Snapshot) {
		eps := append([]proxy.Endpoint{}, c.Endpoints[name]...)
		eps[0].IP = Addr4(10<<24 | 127<<16 | 1)
		c.Endpoints[name] = eps
	})
}

// AddService is the benchmarks' "one new service": bench/new with
// ClusterIP 10.97.0.1 and one endpoint.
func AddService(s *proxy.Snapshot) *proxy.Snapshot {
	name := Name("new")
	return WithChange(s, name, func(c *proxy.Snapshot) {
		c.Services[name] = &proxy.ServicePort{Name: name, Protocol: proxy.TCP, Port: 80, ClusterIP: Addr4(10<<24 | 97<<16 | 1)}
		c.Endpoints[name] = []proxy.Endpoint{{IP: Addr4(10<<24 | 127<<16 | 2), Port: 8080, Ready: true, Serving: true}}
	})
}
