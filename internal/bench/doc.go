// Package bench holds the `svcplane bench` harnesses: Server (time to
// /readyz, idle RSS), Services (ClusterIP Service creation rate),
// Nodes (simulated nodes and pods to Ready), Deployment (a Deployment to
// Available and its background delete), Proxy (proxy backend sync
// times and the userspace data path), Lab (netns nodes and pods to
// Ready) and Traffic (pod → ClusterIP → pod across netns nodes:
// throughput and the latency the Service adds). Server, Nodes, Deployment
// and Services also run on Kubernetes' own kube-apiserver, etcd,
// kube-controller-manager and kube-scheduler (--against upstream|both,
// upstream*.go), side by side (sidebyside.go). cmd/svcplane only parses
// the flags into these Configs.
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
//   - Traffic runs a fresh server and a netns agent (a proxy per node)
//     in its own namespace the same way; its bytes are real kernel
//     traffic between pod namespaces, sent and received by this process
//     through sockets opened inside the pods' namespaces (entered through
//     their `sleep` containers' /proc/<pid>/ns/net).
package bench
