// Package scheduler binds pending pods (no spec.nodeName, schedulerName
// default-scheduler or empty) to nodes through the binding subresource.
// A node fits when it is Ready and schedulable, matches the pod's
// nodeSelector and required node affinity, has no NoSchedule/NoExecute
// taint the pod does not tolerate, and has allocatable pods left; among
// fitting nodes the one with the fewest pods wins (ties by name). As
// upstream's scheduler, placement and binding are split: one worker decides
// placements in memory against a per-node pod count kept incrementally from
// the pod informer (cache.go), assumes the pod on its node at once, and
// binds run concurrently (BindConcurrency); a failed bind takes the
// assumption back and the pod is tried again. A pod that fits nowhere stays
// Pending with a FailedScheduling event in upstream's wording and is
// retried when nodes change.
package scheduler
