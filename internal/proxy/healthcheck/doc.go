// Package healthcheck serves the proxy's health with kube-proxy's
// semantics and bodies.
//
// ProxyHealth answers /healthz and /livez: unhealthy (503) when a proxier
// (one per IP family) has had a change queued for longer than the health
// timeout (2 × syncPeriod) without a sync; a family that never synced
// counts as healthy (starting up). /healthz is also 503 while the node is
// not eligible (deletionTimestamp set or the cluster autoscaler's
// ToBeDeletedByClusterAutoscaler taint). When healthy, lastUpdated is the
// current time, as upstream reports it.
//
// ServiceHealthServer runs one HTTP server per Service with a
// healthCheckNodePort (LoadBalancer, externalTrafficPolicy Local): 200
// with the number of local ready endpoints while there is at least one
// and the proxy is healthy, else 503; the body is upstream's JSON.
//
// Guarantees: time comes only from the injected clock; listeners come
// from an injected function, so tests use loopback ports.
package healthcheck
