// Package repair keeps allocations consistent with the Services that hold
// them, as kube-apiserver's repair loops do. Each pass rebuilds the truth
// from the live Services and:
//   - records an allocation a Service holds but the store lacks
//     (ClusterIPNotAllocated / PortNotAllocated), and warns about values
//     given twice (…AlreadyAllocated) or outside the range (…OutOfRange);
//   - frees a value the store holds but no Service uses only when a third
//     consecutive pass still finds it unused (a create in flight is never
//     robbed), then forgets its count. In IPAddress mode an orphaned
//     IPAddress must also be older than 60 s.
//
// Passes run once before /readyz turns 200 and then every --repair-interval.
package repair
