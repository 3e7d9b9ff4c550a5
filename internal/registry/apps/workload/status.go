package workload

import (
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// ReplicaCounts are the counters a Deployment's or ReplicaSet's status
// reports (nil pointers where a kind has no such counter).
type ReplicaCounts struct {
	Replicas, Updated, FullyLabeled, Ready, Available, Unavailable *int32
	Terminating, CollisionCount                                    *int32
	ObservedGeneration                                             int64
}

// ValidateReplicaCounts checks a workload status as upstream's
// ValidateDeploymentStatus and ValidateReplicaSetStatus: no negative
// counter, none above replicas, available not above ready.
func ValidateReplicaCounts(c ReplicaCounts, fld *field.Path) field.ErrorList {
	errs := apivalidation.ValidateNonnegativeField(c.ObservedGeneration, fld.Child("observedGeneration"))
	for _, f := range []struct {
		name string
		v    *int32
	}{{"replicas", c.Replicas}, {"updatedReplicas", c.Updated}, {"fullyLabeledReplicas", c.FullyLabeled},
		{"readyReplicas", c.Ready}, {"availableReplicas", c.Available}, {"unavailableReplicas", c.Unavailable},
		{"terminatingReplicas", c.Terminating}, {"collisionCount", c.CollisionCount}} {
		if f.v != nil {
			errs = append(errs, apivalidation.ValidateNonnegativeField(int64(*f.v), fld.Child(f.name))...)
		}
	}
	const msg = "cannot be greater than status.replicas"
	for _, f := range []struct {
		name string
		v    *int32
	}{{"updatedReplicas", c.Updated}, {"fullyLabeledReplicas", c.FullyLabeled}, {"readyReplicas", c.Ready}, {"availableReplicas", c.Available}} {
		if f.v != nil && *f.v > *c.Replicas {
			errs = append(errs, field.Invalid(fld.Child(f.name), *f.v, msg))
		}
	}
	if *c.Available > *c.Ready {
		errs = append(errs, field.Invalid(fld.Child("availableReplicas"), *c.Available, "cannot be greater than readyReplicas"))
	}
	return errs
}
