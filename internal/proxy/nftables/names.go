package nftables

import (
	"crypto/sha256"
	"encoding/base32"
	"fmt"
	"strings"

	"github.com/svcplane/svcplane/internal/proxy"
)

// Fixed object names.
const (
	chainServices        = "services"
	chainMasquerading    = "masquerading"
	chainMarkForMasq     = "mark-for-masquerade"
	chainFirewallCheck   = "firewall-check"
	chainServiceEPCheck  = "service-endpoints-check"
	chainNodePortEPCheck = "nodeport-endpoints-check"
	chainReject          = "reject-chain"

	mapServiceIPs        = "service-ips"
	mapServiceNodePorts  = "service-nodeports"
	mapNoEndpointIPs     = "no-endpoint-services"
	mapNoEndpointNodePts = "no-endpoint-nodeports"
	setHairpin           = "endpoint-hairpin"
	setFirewallIPs       = "firewall-ips"
	setFirewallAllow     = "firewall-allow"
	setNodePortIPs       = "nodeport-ips"
)

// masquerade modes of a dispatch chain.
const (
	masqCluster = "cluster" // ClusterIP: masquerade from outside clusterCIDR
	masqAlways  = "masq"    // external traffic with Cluster policy
	masqNone    = "local"   // external traffic with Local policy
)

// key spaces of the shared endpoint maps.
const (
	keyIP       = "ip" // daddr . proto . port
	keyNodePort = "np" // proto . port
)

// endpointsMap names the endpoint-slot map of a key space and protocol:
// "endpoints-ip-tcp", "endpoints-nodeport-udp", ….
func endpointsMap(keySpace, proto string) string {
	if keySpace == keyNodePort {
		return "endpoints-nodeport-" + proto
	}
	return "endpoints-ip-" + proto
}

// dispatchChain is the shared chain for service ports of one protocol
// with n endpoints.
func dispatchChain(keySpace, proto, masq string, n int) string {
	return fmt.Sprintf("dnat-%s-%s-%s-%d", keySpace, proto, masq, n)
}

func hash8(s string) string {
	h := sha256.Sum256([]byte(s))
	return base32.StdEncoding.EncodeToString(h[:])[:8]
}

// affinityBase names a service port's affinity objects:
// "affinity-HASH-ns/name/proto/port".
func affinityBase(n proxy.ServicePortName) string {
	port := n.Port
	if port == "" {
		port = "-"
	}
	return fmt.Sprintf("affinity-%s-%s/%s/%s/%s", hash8(n.String()), n.Namespace, n.Name, strings.ToLower(string(n.Protocol)), port)
}

// affinityChain is the per-destination-kind chain ("int" or "ext").
func affinityChain(n proxy.ServicePortName, kind string) string {
	return affinityBase(n) + "/" + kind
}

// affinityEndpoint names both the endpoint chain and its affinity set.
func affinityEndpoint(n proxy.ServicePortName, ep proxy.Endpoint) string {
	return affinityBase(n) + "/ep-" + hash8(ep.String())
}

func protoWord(p proxy.Protocol) string { return strings.ToLower(string(p)) }

func hex32(v uint32) string { return fmt.Sprintf("0x%08x", v) }
