// Package userspace is the proxy mode that needs no kernel load balancer:
// per Service port and kind of destination (ClusterIP, external and
// load-balancer IPs, NodePort) a Go listener accepts TCP connections and
// UDP datagrams and relays them to an endpoint chosen by an IPVS-style
// scheduler (internal/proxy/scheduler), with ClientIP affinity and, unlike
// the kernel modes, a retry on another endpoint when a connect fails.
// Service IPs reach the listeners through a minimal nftables table of
// REDIRECT rules (Redirector); NodePorts are bound directly.
//
// Guarantees: SyncProxyRules only swaps endpoint pools and opens or closes
// listeners; established connections keep running across syncs and end
// when either side closes. TCP relaying between *net.TCPConn uses
// io.Copy, which Go turns into splice(2) on Linux (zero copy). The
// affinity table reads an injected clock.
package userspace
