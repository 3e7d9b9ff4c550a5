// Package nodelifecycle watches node heartbeats (the Lease in
// kube-node-lease and the Ready condition's lastHeartbeatTime), as
// kube-controller-manager's node lifecycle controller does.
//
// Every --node-monitor-period it checks each Node: one whose heartbeat is
// older than --node-monitor-grace-period (--node-startup-grace-period for a
// Node that never posted Ready) gets its Ready, MemoryPressure,
// DiskPressure and PIDPressure conditions set to Unknown with reason
// NodeStatusUnknown and message "Kubelet stopped posting node status."
// (NodeStatusNeverUpdated / "Kubelet never posted node status." when a
// condition was never posted). Heartbeats are timed with the controller's
// own clock from when it observed them change, so clock skew between
// agents and the server does not matter.
//
// A worker keeps the taints in step with the Ready condition: Unknown →
// node.kubernetes.io/unreachable, False → node.kubernetes.io/not-ready,
// each with effects NoSchedule and NoExecute; True removes them. Pods on a
// node that is not Ready get their Ready condition set to False
// (MarkPodsNotReady) so Services stop sending them traffic; the agent sets
// them Ready again when the node is back.
//
// Not done (upstream does): the NoExecute taint is added at once rather
// than through the per-zone rate limiter, there is no "full disruption"
// mode (all nodes down keeps the taints), and no taint-based eviction of
// pods (no tolerationSeconds timer deletes them).
package nodelifecycle
