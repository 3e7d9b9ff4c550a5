// Package healthcheck serves the proxy's /healthz and /livez with
// kube-proxy's semantics: unhealthy when a queued change has waited longer
// than the health timeout (2 × syncPeriod) without a sync; /healthz also
// answers 503 while the node is being deleted. The body is kube-proxy's
// JSON ({"lastUpdated", "currentTime", "nodeEligible"}).
package healthcheck
