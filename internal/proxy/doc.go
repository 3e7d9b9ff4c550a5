// Package proxy holds the slim, API-free types the service proxy works on
// (ServicePortName, ServicePort, Endpoint, Node, Snapshot) and endpoint
// selection (CategorizeEndpoints) with kube-proxy's semantics,
// RulesConfig, the per-family settings the nftables and iptables backends
// share, and Backend and SyncResult, the interface every mode's Proxier
// implements and the one result all of them report after a sync.
//
// Guarantees: nothing in this package or below the tracker imports
// Kubernetes API types; a Snapshot is immutable once built, so backends may
// keep and compare snapshots without copying.
package proxy
