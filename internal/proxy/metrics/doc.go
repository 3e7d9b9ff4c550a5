// Package metrics holds the proxy's Prometheus metrics under kube-proxy's
// names (subsystem "kubeproxy"), registered on a registry the caller owns:
// sync_proxy_rules_duration_seconds (and its _full_ and _partial_
// variants), sync_proxy_rules_last_timestamp_seconds,
// network_programming_duration_seconds (from the EndpointSlices'
// endpoints.kubernetes.io/last-change-trigger-time),
// sync_proxy_rules_no_local_endpoints_total by traffic_policy,
// proxy_healthz_total and proxy_livez_total by code.
//
// Guarantees: observations take the time as an argument; nothing reads a
// clock here.
package metrics
