// Package node holds the node side of svcplane: the agent (agent/), which
// registers Nodes, heartbeats their Leases and runs the pods bound to them
// on a runtime, the runtimes (runtime/sim: addresses only; runtime/netns:
// network namespaces and running containers), the contract between
// runtimes and the kubelet API (container/) and the kubelet API itself
// (kubelet/: logs, exec, port-forward for the API server).
package node
