package kubeletclient

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"slices"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/transport"
)

// AddressAnnotation on a Node is the host the API server dials for its
// kubelet API, instead of one of its status.addresses.
const AddressAnnotation = "svcplane.io/kubelet-address"

// Config is kube-apiserver's --kubelet-* flags.
type Config struct {
	// Port is used when a Node reports no kubelet port (10250).
	Port int
	// PreferredAddressTypes order the node's addresses.
	PreferredAddressTypes []string
	// Timeout bounds dialing a kubelet (--kubelet-timeout; kube-apiserver
	// 1.36 accepts the flag and uses it nowhere).
	Timeout                   time.Duration
	CertFile, KeyFile, CAFile string
}

// DefaultConfig has kube-apiserver's defaults, except the address
// types: kubeadm's InternalIP,ExternalIP,Hostname (kube-apiserver's own
// default tries Hostname first, and a node's name resolves nowhere in a
// lab of network namespaces).
func DefaultConfig() Config {
	return Config{Port: 10250, Timeout: 5 * time.Second, PreferredAddressTypes: []string{
		string(corev1.NodeInternalIP), string(corev1.NodeExternalIP), string(corev1.NodeHostName)}}
}

// Validate checks the address types (kube-apiserver's message).
func (c Config) Validate() error {
	for _, t := range c.PreferredAddressTypes {
		switch corev1.NodeAddressType(t) {
		case corev1.NodeHostName, corev1.NodeInternalDNS, corev1.NodeInternalIP, corev1.NodeExternalDNS, corev1.NodeExternalIP:
		default:
			return fmt.Errorf("--kubelet-preferred-address-types: %s is not a valid NodeAddressType", t)
		}
	}
	if c.Timeout < 0 {
		return fmt.Errorf("--kubelet-timeout must not be negative")
	}
	if (c.CertFile == "") != (c.KeyFile == "") {
		return fmt.Errorf("--kubelet-client-certificate and --kubelet-client-key must be given together")
	}
	return nil
}

// ConnectionInfo is how to reach one node's kubelet.
type ConnectionInfo struct {
	Scheme, Hostname, Port string
	Transport              http.RoundTripper
	// InsecureSkipTLSVerifyTransport is for pods/log's
	// insecureSkipTLSVerifyBackend.
	InsecureSkipTLSVerifyTransport http.RoundTripper
	// NodeFeatures are the node's status.declaredFeatures.
	NodeFeatures []string
}

// ExtendWebSocketsToKubelet is the declared node feature of kubelets that
// serve kubectl's WebSocket exec, attach and port-forward themselves: the
// API server then proxies those requests as they are instead of
// translating them to SPDY.
const ExtendWebSocketsToKubelet = "ExtendWebSocketsToKubelet"

// SupportsWebSockets reports whether the node declares
// ExtendWebSocketsToKubelet.
func (c *ConnectionInfo) SupportsWebSockets() bool {
	return slices.Contains(c.NodeFeatures, ExtendWebSocketsToKubelet)
}

// NodeGetter reads a Node (the API server's nodes storage).
type NodeGetter func(ctx context.Context, name string) (*corev1.Node, error)

// Getter finds a node's ConnectionInfo.
type Getter struct {
	cfg                 Config
	nodes               NodeGetter
	transport, insecure http.RoundTripper
}

// New builds the kubelet transports of cfg.
func New(cfg Config, nodes NodeGetter) (*Getter, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	g := &Getter{cfg: cfg, nodes: nodes}
	var err error
	if g.transport, err = cfg.transport(false); err != nil {
		return nil, fmt.Errorf("kubelet client: %w", err)
	}
	if g.insecure, err = cfg.transport(true); err != nil {
		return nil, fmt.Errorf("kubelet client: %w", err)
	}
	return g, nil
}

func (c Config) transport(insecure bool) (http.RoundTripper, error) {
	tc := &transport.Config{TLS: transport.TLSConfig{CAFile: c.CAFile, CertFile: c.CertFile, KeyFile: c.KeyFile, ReloadTLSFiles: true}}
	if !tc.HasCA() || insecure {
		tc.TLS.Insecure, tc.TLS.CAFile = true, ""
	}
	d := &net.Dialer{Timeout: c.Timeout, KeepAlive: 30 * time.Second}
	tc.DialHolder = &transport.DialHolder{Dial: d.DialContext}
	return transport.New(tc)
}

// GetConnectionInfo returns how to reach node's kubelet.
func (g *Getter) GetConnectionInfo(ctx context.Context, node string) (*ConnectionInfo, error) {
	n, err := g.nodes(ctx, node)
	if err != nil {
		return nil, err
	}
	host := n.Annotations[AddressAnnotation]
	if host == "" {
		if host, err = PreferredAddress(n, g.cfg.PreferredAddressTypes); err != nil {
			return nil, err
		}
	}
	port := int(n.Status.DaemonEndpoints.KubeletEndpoint.Port)
	if port <= 0 {
		port = g.cfg.Port
	}
	return &ConnectionInfo{Scheme: "https", Hostname: host, Port: strconv.Itoa(port),
		Transport: g.transport, InsecureSkipTLSVerifyTransport: g.insecure, NodeFeatures: n.Status.DeclaredFeatures}, nil
}

// PreferredAddress is the node's first address of the first type in
// types that it has (upstream's GetPreferredNodeAddress).
func PreferredAddress(n *corev1.Node, types []string) (string, error) {
	for _, t := range types {
		for _, a := range n.Status.Addresses {
			if string(a.Type) == t {
				return a.Address, nil
			}
		}
	}
	return "", fmt.Errorf("no preferred addresses found; known addresses: %v", n.Status.Addresses)
}
