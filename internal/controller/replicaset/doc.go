// Package replicaset is the ReplicaSet controller: it creates and deletes
// pods to match spec.replicas (creations in slow-start batches 1, 2, 4, …),
// adopts matching orphans and releases pods whose labels stop matching
// through the ControllerRef (a pod owned by another controller is never
// taken), deletes on scale-down in upstream's order (deletion.go: unassigned,
// Pending, not Ready, lowest controller.kubernetes.io/pod-deletion-cost,
// most pods of the owner's ReplicaSets on its node, Ready most recently,
// most restarts, newest), waits on expectations so a stale cache never makes extra pods,
// and keeps status (replicas, fullyLabeledReplicas, readyReplicas,
// availableReplicas, observedGeneration). Shape: informers → rate-limited
// queue keyed namespace/name → sync.
//
// The owner kind is a Kind value: ReplicaSetKind, or another kind with the
// same semantics seen as ReplicaSets (internal/controller/replication
// adapts ReplicationControllers, as upstream's replication controller
// wraps its ReplicaSet controller).
package replicaset
