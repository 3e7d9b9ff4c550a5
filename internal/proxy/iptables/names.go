package iptables

import (
	"crypto/sha256"
	"encoding/base32"
	"strings"

	"github.com/svcplane/svcplane/internal/proxy"
)

// Table is an iptables table.
type Table string

// The tables the backend writes.
const (
	TableFilter Table = "filter"
	TableNAT    Table = "nat"
	TableMangle Table = "mangle"
)

// Chain names, as upstream kube-proxy names them.
const (
	chainServices         = "KUBE-SERVICES"
	chainExternalServices = "KUBE-EXTERNAL-SERVICES"
	chainNodePorts        = "KUBE-NODEPORTS"
	chainPostrouting      = "KUBE-POSTROUTING"
	chainMarkMasq         = "KUBE-MARK-MASQ"
	chainForward          = "KUBE-FORWARD"
	chainProxyFirewall    = "KUBE-PROXY-FIREWALL"
	// ChainCanary is created empty in mangle, nat and filter; when it is
	// gone, someone flushed the tables and a full resync is needed.
	ChainCanary = "KUBE-PROXY-CANARY"

	prefixSVC = "KUBE-SVC-"
	prefixSVL = "KUBE-SVL-"
	prefixEXT = "KUBE-EXT-"
	prefixFW  = "KUBE-FW-"
	prefixSEP = "KUBE-SEP-"
)

// ownedPrefixes are the per-Service chain prefixes the backend may delete
// when it finds them stale (KUBE-XLB- is upstream's pre-1.24 name).
var ownedPrefixes = []string{prefixSVC, prefixSVL, prefixEXT, prefixFW, prefixSEP, "KUBE-XLB-"}

func isOwnedServiceChain(name string) bool {
	for _, p := range ownedPrefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// portProtoHash is upstream's hash of "ns/name:port" + protocol.
func portProtoHash(s string) string {
	h := sha256.Sum256([]byte(s))
	return base32.StdEncoding.EncodeToString(h[:])[:16]
}

// upstreamName is "ns/name:port" (upstream's ServicePortName.String()).
func upstreamName(n proxy.ServicePortName) string {
	return n.Namespace + "/" + n.Name + ":" + n.Port
}

// serviceChains are the names of one service port's chains.
type serviceChains struct {
	svc, svl, ext, fw string
}

func chainsFor(n proxy.ServicePortName) serviceChains {
	h := portProtoHash(upstreamName(n) + protoWord(n.Protocol))
	return serviceChains{svc: prefixSVC + h, svl: prefixSVL + h, ext: prefixEXT + h, fw: prefixFW + h}
}

// endpointChain is KUBE-SEP-<hash of name, protocol and endpoint>.
func endpointChain(n proxy.ServicePortName, ep proxy.Endpoint) string {
	return prefixSEP + portProtoHash(upstreamName(n)+protoWord(n.Protocol)+ep.String())
}

func protoWord(p proxy.Protocol) string { return strings.ToLower(string(p)) }
