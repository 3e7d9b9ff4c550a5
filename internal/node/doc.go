// Package node holds the node side of svcplane: the agent (agent/), which
// registers Nodes, heartbeats their Leases and runs the pods bound to them
// on a runtime, and the runtimes (runtime/sim: addresses only; runtime/netns:
// network namespaces and running containers).
package node
