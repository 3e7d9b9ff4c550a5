// Package bench holds the `svcplane bench` harnesses: Server (time to
// /readyz, idle RSS), Services (ClusterIP Service creation rate),
// Nodes (simulated nodes and pods to Ready), Deployment (a Deployment to
// Available and its background delete) and Proxy (proxy backend sync
// times and the userspace data path). cmd/svcplane only parses the flags
// into these Configs.
//
// Guarantees:
//   - The figures are printed to the out writer in the same lines as
//     before the harnesses left package main; progress goes to a separate
//     writer (stderr), at least one line every 10 s of a long phase
//     (phase, counts, elapsed).
//   - Every server, agent and helper process a bench starts is a child of
//     this binary that gets SIGTERM when the bench process dies (Linux),
//     and is stopped and its data dir removed when the bench returns.
//   - The proxy benches run in a fresh network namespace (netns.go) that
//     is deleted afterwards: the bench re-executes this binary as
//     `svcplane bench proxy --in-netns …` inside it (needs root). Their
//     snapshots are synthetic.Synthetic, the same cluster the backends' Go
//     benchmarks use.
package bench
