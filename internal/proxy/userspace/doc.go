// Package userspace is the proxy mode that needs no kernel load balancer:
// per Service port and kind of destination (ClusterIP, external and
// load-balancer IPs, NodePort) a listener accepts TCP connections (all
// TCP listeners of the process from one epoll loop, acceptor.go, not a
// goroutine each) and UDP datagrams and relays them to an endpoint chosen by an IPVS-style
// scheduler (internal/proxy/scheduler), with ClientIP affinity and, unlike
// the kernel modes, a retry on another endpoint when a connect fails.
// Service IPs reach the listeners through a minimal nftables table: one
// REDIRECT rule looking the listener's port up in a map keyed by daddr .
// l4proto . dport (Redirector, which writes only the elements that
// changed, over netlink when nothing else changed); NodePorts are bound
// directly.
//
// Dual-stack: a Proxier serves one IP family (Config.Family); a dual-stack
// node runs one per family, each fed its family's Snapshot and owning its
// family's table (NewNFT(fam): ip or ip6 svcplane-userspace). Its sockets
// are of that family only ("tcp4"/"udp4", "tcp6"/"udp6" with
// IPV6_V6ONLY), so both proxiers can hold the same NodePort. Cleanup
// removes one family's table; call it for each.
//
// No endpoints: a service port kind without endpoints is not redirected;
// the table's filter chains (input, forward, output; new flows only)
// reject it, TCP with a reset and UDP with ICMP port unreachable, when
// the port has no endpoints at all, and drop it when a Local traffic
// policy leaves none on this node, as the kernel modes do (but also for
// clients on the node itself, which the kernel modes send to any
// endpoint of an externalTrafficPolicy Local Service). Its listeners
// stay open (the NodePort stays held), and what reaches them directly is
// reset (TCP) or dropped (UDP).
//
// Guarantees: SyncProxyRules only swaps endpoint pools and opens or closes
// listeners; established connections keep running across syncs and end
// when either side closes. TCP relaying between *net.TCPConn uses
// io.Copy, which Go turns into splice(2) on Linux (zero copy). The
// affinity table reads an injected clock.
package userspace
