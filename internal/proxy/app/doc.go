// Package app is the service proxy's runtime, what `svcplane proxy` and
// the local proxy of `svcplane up` run: Run builds one backend of the
// chosen mode (nftables, iptables, ipvs, userspace; all proxy.Backend) per
// IP family the cluster uses, fed by one set of informers (one tracker per
// family), each synced by its own bounded-frequency runner, and fans every
// sync out to the metrics, /healthz and /livez, the per-Service health
// check servers and the UDP conntrack cleanup. Cleanup removes what every
// mode installs.
//
// Guarantees:
//   - Dual-stack is composed here: both families run when the cluster
//     CIDRs or the Node's addresses span both; a second family whose
//     backend cannot be built is dropped with a log (single-stack), a
//     first one is an error.
//   - The mode that runs is decided once, by ChooseMode, before anything
//     is built: ipvs falls back to iptables, for every family, when the
//     kernel has no IPVS or the ipset tool is missing; an unknown mode is
//     an error.
//   - A family's failing syncs retry on its own runner without forcing
//     full syncs on the other family; the per-Service health servers and
//     the no-local-endpoints gauge merge both families.
//   - Every kernel interface, the clock and a per-sync hook are in Deps;
//     the zero Deps is the real kernel and clock. Run returns when ctx ends
//     and leaves its servers and background work stopped.
package app
