// Package replication is kube-controller-manager's "replicationcontroller"
// controller: core/v1 ReplicationControllers keep their pods with exactly
// the ReplicaSet controller's semantics (expectations, slow start,
// adoption and release through ControllerRefs of kind
// ReplicationController, status). As upstream's pkg/controller/replication,
// it is the ReplicaSet controller run on a view of each
// ReplicationController as a ReplicaSet: Kind converts the selector map to
// matchLabels and the template pointer to a value, and status writes back.
package replication
