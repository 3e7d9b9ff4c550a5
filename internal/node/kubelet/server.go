package kubelet

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"k8s.io/klog/v2"

	"github.com/svcplane/svcplane/internal/pki"
)

// Endpoint is where the API server reaches a node's kubelet API: Host ""
// is the node's own address (Node.status.addresses), else the address
// the agent advertises for it; Port goes to
// Node.status.daemonEndpoints.kubeletEndpoint.Port.
type Endpoint struct {
	Host string
	Port int32
}

// Server is the kubelet API of an agent's nodes.
type Server struct {
	cfg Config

	mu        sync.Mutex
	endpoints map[string]Endpoint
	servers   []*http.Server

	// internal serves the nodes' routes, without authentication, to the
	// in-process WebSocket translators (by Host: the node's name).
	internal *pipeListener
	routes   map[string]http.Handler
}

// New checks cfg; Start listens.
func New(cfg Config) (*Server, error) {
	cfg.defaults()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	s := &Server{cfg: cfg, endpoints: map[string]Endpoint{}, internal: newPipeListener(), routes: map[string]http.Handler{}}
	for _, n := range cfg.Nodes {
		s.routes[n] = s.nodeRoutes(n)
	}
	return s, nil
}

// Handler is node's kubelet API behind authentication and authorization.
func (s *Server) Handler(node string) http.Handler {
	return s.withAuth(node, s.routes[node])
}

// serveInternal serves the WebSocket translators' SPDY requests until ctx
// ends.
func (s *Server) serveInternal(ctx context.Context) {
	srv := &http.Server{ReadHeaderTimeout: 30 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h, ok := s.routes[r.Host]
		if !ok {
			http.NotFound(w, r)
			return
		}
		h.ServeHTTP(w, r)
	})}
	go func() { _ = srv.Serve(s.internal) }()
	go func() { <-ctx.Done(); _ = srv.Close() }()
}

// Start opens every node's listener and serves until ctx ends. It fails
// (closing what it opened) when a listener cannot be opened.
func (s *Server) Start(ctx context.Context) error {
	var servers []*http.Server
	var listeners []net.Listener
	fail := func(err error) error {
		for _, l := range listeners {
			_ = l.Close()
		}
		return err
	}
	endpoints := map[string]Endpoint{}
	for _, node := range s.cfg.Nodes {
		l, ep, err := s.listen(node)
		if err != nil {
			return fail(err)
		}
		listeners = append(listeners, l)
		hosts := []string{node}
		if ep.Host != "" {
			hosts = append(hosts, ep.Host)
		}
		if s.cfg.NodeAddresses != nil {
			hosts = append(hosts, s.cfg.NodeAddresses(node)...)
		}
		cert, err := s.certificate(node, hosts)
		if err != nil {
			return fail(fmt.Errorf("kubelet API of node %s: serving certificate: %w", node, err))
		}
		srv := &http.Server{
			Handler:           s.Handler(node),
			ReadHeaderTimeout: 30 * time.Second,
			// HTTP/1.1 only: exec and port-forward upgrade the connection.
			TLSNextProto: map[string]func(*http.Server, *tls.Conn, http.Handler){},
			TLSConfig: &tls.Config{MinVersion: tls.VersionTLS12, Certificates: []tls.Certificate{*cert},
				ClientAuth: tls.RequestClientCert, NextProtos: []string{"http/1.1"}},
		}
		servers = append(servers, srv)
		endpoints[node] = ep
	}
	s.mu.Lock()
	s.endpoints, s.servers = endpoints, servers
	s.mu.Unlock()
	s.serveInternal(ctx)
	for i, srv := range servers {
		go func(srv *http.Server, l net.Listener) {
			if err := srv.ServeTLS(l, "", ""); err != nil && !errors.Is(err, http.ErrServerClosed) {
				klog.ErrorS(err, "Kubelet API stopped serving", "address", l.Addr())
			}
		}(srv, listeners[i])
	}
	go func() {
		<-ctx.Done()
		for _, srv := range servers {
			_ = srv.Close()
		}
	}()
	klog.InfoS("Kubelet API serving", "nodes", len(servers), "first", s.cfg.Nodes[0], "endpoint", endpoints[s.cfg.Nodes[0]])
	return nil
}

func (s *Server) listen(node string) (net.Listener, Endpoint, error) {
	if s.cfg.Listen != nil {
		l, err := s.cfg.Listen(node, "tcp", net.JoinHostPort("", strconv.Itoa(s.cfg.Port)))
		if err != nil {
			return nil, Endpoint{}, fmt.Errorf("kubelet API of node %s: %w", node, err)
		}
		return l, Endpoint{Port: int32(s.cfg.Port)}, nil
	}
	l, err := net.Listen("tcp", net.JoinHostPort(s.cfg.BindAddress, strconv.Itoa(s.cfg.Port)))
	if err != nil {
		return nil, Endpoint{}, fmt.Errorf("kubelet API of node %s: %w", node, err)
	}
	return l, Endpoint{Host: s.cfg.AdvertiseAddress, Port: int32(l.Addr().(*net.TCPAddr).Port)}, nil
}

func (s *Server) certificate(node string, hosts []string) (*tls.Certificate, error) {
	if s.cfg.Certificate != nil {
		return s.cfg.Certificate(node, hosts)
	}
	certPEM, keyPEM, err := pki.SelfSigned(node, 365*24*time.Hour)
	if err != nil {
		return nil, err
	}
	c, err := tls.X509KeyPair(certPEM, keyPEM)
	return &c, err
}

// Endpoint returns where node's kubelet API listens, once Start has run.
func (s *Server) Endpoint(node string) (Endpoint, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ep, ok := s.endpoints[node]
	return ep, ok
}
