// Package tracker watches Services, EndpointSlices, the proxy's own Node
// and ServiceCIDRs through client-go informers and turns them into an
// immutable proxy.Snapshot of slim internal types. It is the only proxy
// package that sees Kubernetes API types.
//
// Guarantees: every change calls the onChange callback after the tracker's
// state has been updated, so a Snapshot taken in (or after) the callback
// reflects it; Snapshot never shares mutable state with the tracker.
package tracker
