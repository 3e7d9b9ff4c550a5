// Package inflight is the server's in-flight request limit: k8s.io/apiserver's
// max-in-flight filter (--max-requests-inflight 400 reads,
// --max-mutating-requests-inflight 200 writes, system:masters never
// refused) for every request except node heartbeats, which get seats of
// their own.
//
// It is our simplification of kube-apiserver's API Priority and Fairness
// for the one flow that matters for node health: upstream's
// "system-node-high" FlowSchema sends every request of group system:nodes on
// nodes, nodes/status and coordination.k8s.io leases to the "node-high"
// priority level (40 of the suggested configuration's 245 nominal
// concurrency shares, requests queued, not refused, while it is full), so a
// flood of other writes cannot starve Lease renewals and node status
// updates. Here those requests (also of Config.NodeGroups: svcplane's node
// simulator group, which stands for many kubelets) take a seat in a pool of NodeHighSeats;
// when the pool is full a request waits for a seat up to Config.Wait and is
// then refused with 429 and Retry-After: 1 s, as the plain filter refuses.
// They never take one of the 400 + 200 seats of the rest. Watches and other
// long-running requests take no seat.
//
// Not reproduced: the other priority levels, fair queuing among flows,
// borrowing and lending of seats, work estimation, the FlowSchema and
// PriorityLevelConfiguration objects.
package inflight
