// Package aggregator puts k8s.io/kube-aggregator in front of svcplane's
// API server, wired as kube-apiserver wires it (cmd/kube-apiserver/app
// and pkg/controlplane/apiserver/aggregator.go upstream):
//
//   - the aggregator's generic server takes a copy of the core's generic
//     configuration (same authentication, authorization, admission,
//     handler chain), stores apiregistration.k8s.io APIServices in etcd
//     under /registry/apiregistration.k8s.io/apiservices (JSON, v1 form)
//     and delegates every path it does not own to the core server;
//   - every group version the core serves gets a local APIService
//     (spec.service nil; the library's local availability controller marks
//     it Available, reason Local) with kube-apiserver's priorities
//     (priorities.go), kept by the library's autoregister controller;
//   - every served CRD version gets one too (crdregistration.go, our own
//     controller with upstream's semantics: group priority 1000, version
//     priority 100), removed when no CRD serves it any more;
//   - an APIService naming a Service is proxied to it with the front-proxy
//     client certificate, and the library's remote availability
//     controller checks it (ServiceNotFound, MissingEndpoints,
//     FailedDiscoveryCheck, …); its discovery and OpenAPI are merged
//     into /apis and /openapi/v2, /openapi/v3;
//   - /readyz waits (autoregister-completion) until every built-in
//     APIService has been seen Available.
//
// The package imports only libraries; internal/apiserver calls New.
package aggregator
