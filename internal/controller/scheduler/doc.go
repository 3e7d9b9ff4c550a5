// Package scheduler binds pending pods (no spec.nodeName, schedulerName
// default-scheduler or empty) to nodes through the binding subresource.
// A node fits when it is Ready and schedulable, matches the pod's
// nodeSelector and required node affinity, has no NoSchedule/NoExecute
// taint the pod does not tolerate, and has room for it as upstream's
// NodeResourcesFit: allocatable pods, cpu and memory minus the requests
// (resourcehelper.PodRequests) of the pods there and of those assumed
// there; among fitting nodes the one with the fewest pods wins (ties by
// name). The nodes are kept in that order (order.go: a btree re-ranked
// whenever a node's pod count changes) and tried in it until one fits, so
// a placement visits every node only when few or none fit. As upstream's scheduler, placement and binding are split: one
// worker decides placements in memory against per-node pod counts and
// requests kept incrementally from the pod informer (cache.go), assumes the pod on its node at once, and
// binds run concurrently (BindConcurrency); a failed bind takes the
// assumption back and the pod is tried again. A pod that fits nowhere stays
// Pending with a FailedScheduling event and the condition PodScheduled=False
// Unschedulable, both with upstream's FitError message ("0/3 nodes are
// available: 3 Insufficient cpu."), and is retried with backoff and when
// nodes change. A pod with spec.schedulingGates is not queued (upstream's
// SchedulingGates PreEnqueue); the API server gave it PodScheduled=False
// SchedulingGated, and removing its last gate queues it.
package scheduler
