package healthcheck

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"sync"
	"time"

	"k8s.io/klog/v2"

	"github.com/svcplane/svcplane/internal/proxy"
)

// ServiceName is a Service's namespace and name.
type ServiceName struct{ Namespace, Name string }

func (n ServiceName) String() string { return n.Namespace + "/" + n.Name }

// ServiceHealthServer runs the per-Service health check servers.
type ServiceHealthServer struct {
	// listen opens a listener (net.Listen in production).
	listen  func(addr string) (net.Listener, error)
	ips     []netip.Addr // addresses to listen on; empty = all
	healthy func() bool

	mu       sync.Mutex
	services map[ServiceName]*serviceHC
}

type serviceHC struct {
	port      uint16
	servers   []*http.Server
	endpoints int
}

// NewServiceHealthServer returns a server listening on ips (empty: every
// address) that reports the proxy unhealthy when healthy() is false.
func NewServiceHealthServer(ips []netip.Addr, healthy func() bool, listen func(addr string) (net.Listener, error)) *ServiceHealthServer {
	if listen == nil {
		listen = func(addr string) (net.Listener, error) { return net.Listen("tcp", addr) }
	}
	return &ServiceHealthServer{listen: listen, ips: ips, healthy: healthy, services: map[ServiceName]*serviceHC{}}
}

// SyncServices makes services (name → healthCheckNodePort) the served
// set: servers of Services gone or moved close, new ones open. A port
// that cannot be opened is logged and retried on the next call.
func (s *ServiceHealthServer) SyncServices(services map[ServiceName]uint16) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for name, hc := range s.services {
		if port, ok := services[name]; !ok || port != hc.port {
			hc.close()
			delete(s.services, name)
		}
	}
	var errs []error
	for name, port := range services {
		if s.services[name] != nil {
			continue
		}
		hc := &serviceHC{port: port}
		if err := s.open(name, hc); err != nil {
			klog.ErrorS(err, "Failed to start service health check", "service", name, "port", port)
			errs = append(errs, err)
			continue
		}
		s.services[name] = hc
	}
	return errors.Join(errs...)
}

func (s *ServiceHealthServer) open(name ServiceName, hc *serviceHC) error {
	addrs := []string{":" + strconv.Itoa(int(hc.port))}
	if len(s.ips) > 0 {
		addrs = addrs[:0]
		for _, ip := range s.ips {
			addrs = append(addrs, net.JoinHostPort(ip.String(), strconv.Itoa(int(hc.port))))
		}
	}
	for _, addr := range addrs {
		l, err := s.listen(addr)
		if err != nil {
			hc.close()
			return fmt.Errorf("health check of %s on %s: %w", name, addr, err)
		}
		srv := &http.Server{Handler: s.Handler(name), ReadHeaderTimeout: 5 * time.Second}
		hc.servers = append(hc.servers, srv)
		go func() {
			if err := srv.Serve(l); err != nil && !errors.Is(err, http.ErrServerClosed) {
				klog.ErrorS(err, "Service health check server failed", "service", name)
			}
		}()
	}
	return nil
}

func (hc *serviceHC) close() {
	for _, srv := range hc.servers {
		_ = srv.Close()
	}
	hc.servers = nil
}

// SyncEndpoints records the local ready endpoints per Service; Services
// not named have none.
func (s *ServiceHealthServer) SyncEndpoints(endpoints map[ServiceName]int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for name, hc := range s.services {
		hc.endpoints = endpoints[name]
	}
}

// Close stops every server.
func (s *ServiceHealthServer) Close() {
	_ = s.SyncServices(nil)
}

// Handler answers one Service's health check.
func (s *ServiceHealthServer) Handler(name ServiceName) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		s.mu.Lock()
		hc := s.services[name]
		count := 0
		if hc != nil {
			count = hc.endpoints
		}
		s.mu.Unlock()
		healthy := s.healthy()
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		if count > 0 && healthy {
			w.WriteHeader(http.StatusOK)
		} else {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
		fmt.Fprintf(w, "{\n\t\"service\": {\n\t\t\"namespace\": %q,\n\t\t\"name\": %q\n\t},\n\t\"localEndpoints\": %d,\n\t\"serviceProxyHealthy\": %v\n}",
			name.Namespace, name.Name, count, healthy)
	})
}

// FromSnapshot returns the health-checked Services of a snapshot (those
// with a healthCheckNodePort) and their local ready endpoints, counted
// once per address over all their ports.
func FromSnapshot(snap *proxy.Snapshot) (map[ServiceName]uint16, map[ServiceName]int) {
	services := map[ServiceName]uint16{}
	for name, svc := range snap.Services {
		if svc.HealthCheckNodePort != 0 {
			services[ServiceName{name.Namespace, name.Name}] = svc.HealthCheckNodePort
		}
	}
	local := map[ServiceName]map[netip.Addr]bool{}
	for name, eps := range snap.Endpoints {
		sn := ServiceName{name.Namespace, name.Name}
		if _, ok := services[sn]; !ok {
			continue
		}
		for _, ep := range eps {
			if ep.IsLocal && ep.Ready {
				if local[sn] == nil {
					local[sn] = map[netip.Addr]bool{}
				}
				local[sn][ep.IP] = true
			}
		}
	}
	endpoints := make(map[ServiceName]int, len(services))
	for sn := range services {
		endpoints[sn] = len(local[sn])
	}
	return services, endpoints
}
