package kubelet

import (
	"crypto/tls"
	"fmt"
	"net"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apiserver/pkg/authentication/authenticator"
	"k8s.io/apiserver/pkg/authorization/authorizer"

	"github.com/svcplane/svcplane/internal/node/container"
)

// DefaultPort is the kubelet's --port.
const DefaultPort = 10250

// Target is what a Lookup finds for a pod: the pod, the node it runs on
// and its runtime's streams.
type Target struct {
	Pod     *corev1.Pod
	UID     types.UID
	Node    string
	Streams container.Streams
}

// Lookup returns the pod namespace/name if this agent runs it.
type Lookup func(namespace, name string) (Target, bool)

// NoProcesses is implemented by a container.Streams whose runtime runs no
// process at all (the simulated runtime): exec and port-forward are
// refused before the connection is upgraded, with ErrNotSupported's
// message as a 400 kubectl prints.
type NoProcesses interface {
	RunsNoProcesses() bool
}

// Config is what a Server serves.
type Config struct {
	// Nodes are the agent's nodes; each gets its own endpoint.
	Nodes []string
	// Lookup finds a pod; Pods lists a node's pods (/pods).
	Lookup Lookup
	Pods   func(node string) []*corev1.Pod

	// Authenticator and Authorizer decide every request (see
	// DelegatingAuth for the kubelet's).
	Authenticator authenticator.Request
	Authorizer    authorizer.Authorizer

	// Certificate returns a node's serving certificate; nil: each node
	// makes itself a self-signed one, as the kubelet without
	// --tls-cert-file does.
	Certificate func(node string, hosts []string) (*tls.Certificate, error)

	// Listen opens a socket in a node's network namespace (the netns
	// runtime's ListenInNode): each node then listens on Port there and
	// the API server dials the node's own address. Without it every node
	// listens on BindAddress, each on a port of its own (Port 0: a free
	// one), and the API server dials AdvertiseAddress: simulated nodes'
	// addresses route nowhere.
	Listen func(node, network, address string) (net.Listener, error)
	// NodeAddresses are a node's own addresses, also names of its serving
	// certificate (the agent fills it in).
	NodeAddresses func(node string) []string
	Port          int
	// BindAddress (default 127.0.0.1) and AdvertiseAddress (default:
	// BindAddress, or 127.0.0.1 when that is unspecified) are for nodes
	// without Listen.
	BindAddress, AdvertiseAddress string

	// StreamIdleTimeout ends an exec or port-forward without traffic
	// (kubelet: 4 h); StreamCreationTimeout bounds a client's stream setup
	// (30 s).
	StreamIdleTimeout, StreamCreationTimeout time.Duration
}

func (c *Config) defaults() {
	if c.BindAddress == "" {
		c.BindAddress = "127.0.0.1"
	}
	if c.AdvertiseAddress == "" {
		c.AdvertiseAddress = c.BindAddress
		if ip := net.ParseIP(c.BindAddress); ip != nil && ip.IsUnspecified() {
			c.AdvertiseAddress = "127.0.0.1"
		}
	}
	if c.Listen != nil && c.Port == 0 {
		c.Port = DefaultPort
	}
	if c.StreamIdleTimeout == 0 {
		c.StreamIdleTimeout = 4 * time.Hour
	}
	if c.StreamCreationTimeout == 0 {
		c.StreamCreationTimeout = 30 * time.Second
	}
}

func (c *Config) validate() error {
	switch {
	case len(c.Nodes) == 0:
		return fmt.Errorf("kubelet API: no nodes")
	case c.Lookup == nil || c.Pods == nil:
		return fmt.Errorf("kubelet API: no pod lookup")
	case c.Authenticator == nil || c.Authorizer == nil:
		return fmt.Errorf("kubelet API: no authenticator or authorizer")
	case c.Port < 0 || c.Port > 65535:
		return fmt.Errorf("kubelet API: port %d out of range", c.Port)
	case c.Listen == nil && c.Port != 0 && len(c.Nodes) > 1:
		return fmt.Errorf("kubelet API: %d nodes cannot share port %d on %s (use 0: a free port each)", len(c.Nodes), c.Port, c.BindAddress)
	case net.ParseIP(c.BindAddress) == nil:
		return fmt.Errorf("kubelet API: bind address %q is not an IP address", c.BindAddress)
	}
	return nil
}
