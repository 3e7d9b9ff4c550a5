package proxy

import (
	"fmt"
	"net/netip"
	"strconv"
	"time"
)

// Protocol is a Service port protocol.
type Protocol string

// The protocols a Service port can use.
const (
	TCP  Protocol = "TCP"
	UDP  Protocol = "UDP"
	SCTP Protocol = "SCTP"
)

// IPFamily is 4 or 6.
type IPFamily int

// The IP families.
const (
	IPv4 IPFamily = 4
	IPv6 IPFamily = 6
)

// FamilyOf returns the family of an address.
func FamilyOf(a netip.Addr) IPFamily {
	if a.Is4() || a.Is4In6() {
		return IPv4
	}
	return IPv6
}

// ServicePortName identifies one port of one Service, as kube-proxy does.
type ServicePortName struct {
	Namespace string
	Name      string
	Port      string
	Protocol  Protocol
}

// String renders "namespace/name:port/protocol".
func (n ServicePortName) String() string {
	return fmt.Sprintf("%s/%s:%s/%s", n.Namespace, n.Name, n.Port, n.Protocol)
}

// ServicePort is everything a backend needs about one port of one Service
// in one IP family.
type ServicePort struct {
	Name     ServicePortName
	Protocol Protocol
	// ClusterIP is the Service's cluster IP of this family.
	ClusterIP netip.Addr
	Port      uint16
	// NodePort is 0 when the Service has none.
	NodePort                 uint16
	ExternalIPs              []netip.Addr
	LoadBalancerVIPs         []netip.Addr
	LoadBalancerSourceRanges []netip.Prefix
	HealthCheckNodePort      uint16
	// InternalPolicyLocal is internalTrafficPolicy: Local.
	InternalPolicyLocal bool
	// ExternalPolicyLocal is externalTrafficPolicy: Local on a Service that
	// accepts external traffic.
	ExternalPolicyLocal bool
	// StickyMaxAgeSeconds > 0 means sessionAffinity: ClientIP with that timeout.
	StickyMaxAgeSeconds int
}

// ExternallyAccessible reports whether the port takes traffic from outside
// the cluster (NodePort, external IPs or load-balancer IPs).
func (s *ServicePort) ExternallyAccessible() bool {
	return s.NodePort != 0 || len(s.ExternalIPs) > 0 || len(s.LoadBalancerVIPs) > 0
}

// UsesClusterEndpoints reports whether any traffic to the port is sent to
// cluster-wide endpoints (external traffic with Local policy still needs
// them for traffic from inside the cluster).
func (s *ServicePort) UsesClusterEndpoints() bool {
	return !s.InternalPolicyLocal || s.ExternallyAccessible()
}

// UsesLocalEndpoints reports whether any traffic to the port is restricted
// to endpoints on this node.
func (s *ServicePort) UsesLocalEndpoints() bool {
	return s.InternalPolicyLocal || (s.ExternalPolicyLocal && s.ExternallyAccessible())
}

// Endpoint is one backend address of a ServicePort. A proxy holds one per
// endpoint and port (50,000 for 5,000 Services × 10): the fields are
// ordered for a 56-byte struct and the rarely set topology hints sit
// behind a pointer.
type Endpoint struct {
	IP netip.Addr
	// NodeName is the node the endpoint runs on ("" when unknown).
	NodeName string
	// Hints are the EndpointSlice topology hints (nil: none). Shared
	// between copies of the Endpoint: never modified once set.
	Hints *EndpointHints
	Port  uint16
	// IsLocal: the endpoint runs on this node.
	IsLocal     bool
	Ready       bool
	Serving     bool
	Terminating bool
}

// EndpointHints are an endpoint's EndpointSlice topology hints.
type EndpointHints struct {
	Zones []string
	Nodes []string
}

// ZoneHints are the zones the endpoint is hinted for (nil: none).
func (e *Endpoint) ZoneHints() []string {
	if e.Hints == nil {
		return nil
	}
	return e.Hints.Zones
}

// NodeHints are the nodes the endpoint is hinted for (nil: none).
func (e *Endpoint) NodeHints() []string {
	if e.Hints == nil {
		return nil
	}
	return e.Hints.Nodes
}

// String renders "ip:port" (with brackets for IPv6), the endpoint's identity.
func (e Endpoint) String() string {
	return netip.AddrPortFrom(e.IP, e.Port).String()
}

// HostPort is ip and port as strings.
func (e Endpoint) HostPort() (string, string) {
	return e.IP.String(), strconv.Itoa(int(e.Port))
}

func has(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Node is what the proxy knows of its own Node.
type Node struct {
	Name   string
	Labels map[string]string
	// IPs are the node's InternalIP/ExternalIP addresses, primary first.
	IPs []netip.Addr
	// Deleting: the Node has a deletionTimestamp.
	Deleting bool
	// ToBeDeleted: the Node carries the cluster autoscaler's
	// ToBeDeletedByClusterAutoscaler taint.
	ToBeDeleted bool
}

// Eligible reports whether load balancers should keep sending traffic to
// the node (kube-proxy's /healthz nodeEligible): not being deleted, not
// marked for deletion by the cluster autoscaler.
func (n Node) Eligible() bool { return !n.Deleting && !n.ToBeDeleted }

// TaintToBeDeleted is the cluster autoscaler's taint for nodes it is
// about to delete.
const TaintToBeDeleted = "ToBeDeletedByClusterAutoscaler"

// Zone returns the node's topology.kubernetes.io/zone label.
func (n Node) Zone() string { return n.Labels[LabelTopologyZone] }

// LabelTopologyZone is the well-known zone label.
const LabelTopologyZone = "topology.kubernetes.io/zone"

// Snapshot is the immutable state one sync works from: every proxied
// Service port of one family and its endpoints (sorted by String()).
type Snapshot struct {
	Family       IPFamily
	Services     map[ServicePortName]*ServicePort
	Endpoints    map[ServicePortName][]Endpoint
	Node         Node
	ServiceCIDRs []netip.Prefix
	// Changes, when non-nil, names every service port whose ServicePort
	// or endpoints may differ from the snapshot the same consumer received
	// before this one (see tracker.Tracker.NextSnapshot). Nil means
	// unknown: anything may differ (first snapshot, Node or ServiceCIDR
	// changes, snapshots built by hand).
	Changes *ChangeSet
	// LastChangeTriggerTimes are the EndpointSlice
	// endpoints.kubernetes.io/last-change-trigger-time values received
	// since the consumer's previous snapshot (tracker.NextSnapshot), for
	// the network programming latency metric.
	LastChangeTriggerTimes []time.Time
}

// ChangeSet names what changed between two snapshots of one consumer.
type ChangeSet struct {
	// Ports whose ServicePort or endpoints may differ (added, updated or
	// removed).
	Ports map[ServicePortName]struct{}
}
