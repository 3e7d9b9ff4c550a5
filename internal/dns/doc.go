// Package dns is the cluster DNS: the Kubernetes DNS-Based Service
// Discovery specification (schema 1.1.0) answered from an in-memory index
// of Services and EndpointSlices, built on github.com/miekg/dns (the
// library CoreDNS itself uses).
//
// The pieces, one file each:
//   - Index (index.go) holds, per Service, what its records need: cluster
//     IPs, ports, ExternalName and (headless) the ready endpoints with
//     their hostnames; and the reverse (PTR) map. Informers feed it
//     (informers.go; EndpointSlices stored as compact rows, slice.go);
//     queries read it under a read lock.
//   - Resolver (resolve.go) answers a question inside the cluster zone
//     from the Index: A/AAAA, SRV, PTR, CNAME, the dns-version TXT, SOA
//     and NS at the apex, the deprecated pod records, NXDOMAIN vs NODATA
//     as the specification says. It never reaches the network.
//   - Forwarder (forward.go) sends everything outside the zone (and
//     reverse names the cluster does not own) to the host's resolvers, or
//     refuses it (--dns-forward none).
//   - Server (server.go) is the UDP and TCP listener: EDNS0, truncation to
//     the client's buffer, CoreDNS's metric names (metrics.go) and its
//     /health and /ready endpoints. TCP is miekg/dns's server; each UDP
//     socket has one read loop (udp.go; on Linux 16 datagrams per
//     recvmmsg and sendmmsg, batch_linux.go) that answers a question it
//     has answered before from a cache of packed answers (cache.go: keyed
//     by the question's exact bytes, valid for one generation of the
//     Index) without a goroutine or an allocation, and hands any other
//     question to a goroutine that answers as miekg/dns's server would.
//     On a wildcard address, replies go out from the address asked
//     (pktinfo_linux.go).
//   - Register (register.go) keeps the kube-dns Service and its endpoints
//     in kube-system, as kubeadm's CoreDNS add-on has them, pointing at
//     this server.
//
// Guarantees: a Service is answered once its informer event is handled
// (the packed answers are keyed by the index's generation, which moves
// with every change an answer can see); malformed packets are answered with
// FORMERR or dropped, never a panic; answers keep the question's letter
// case while lookups ignore it.
package dns
