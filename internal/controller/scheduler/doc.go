// Package scheduler binds pending pods (no spec.nodeName, schedulerName
// default-scheduler or empty) to nodes through the binding subresource.
// A node fits when it is Ready and schedulable, matches the pod's
// nodeSelector and required node affinity, and has no NoSchedule/NoExecute
// taint the pod does not tolerate; among fitting nodes the one with the
// fewest pods wins (ties by name). A pod that fits nowhere stays Pending
// with a FailedScheduling event in upstream's wording and is retried when
// nodes change.
package scheduler
