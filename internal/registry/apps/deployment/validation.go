package deployment

import (
	appsv1 "k8s.io/api/apps/v1"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/svcplane/svcplane/internal/registry/apps/workload"
)

// strategyValue renders a strategy in errors as upstream's internal type
// does (Go field names, rollingUpdate values not pointers).
type strategyValue struct {
	Type          appsv1.DeploymentStrategyType
	RollingUpdate *rollingUpdateValue
}

type rollingUpdateValue struct{ MaxUnavailable, MaxSurge intstr.IntOrString }

// validate checks a Deployment's spec as upstream's ValidateDeploymentSpec.
func validate(d *appsv1.Deployment) field.ErrorList {
	s, fld := &d.Spec, field.NewPath("spec")
	var errs field.ErrorList
	if s.Replicas != nil {
		errs = append(errs, apivalidation.ValidateNonnegativeField(int64(*s.Replicas), fld.Child("replicas"))...)
	}
	errs = append(errs, workload.ValidateSelectorAndTemplate(s.Selector, &s.Template, fld)...)
	errs = append(errs, validateStrategy(&s.Strategy, fld.Child("strategy"))...)
	errs = append(errs, apivalidation.ValidateNonnegativeField(int64(s.MinReadySeconds), fld.Child("minReadySeconds"))...)
	if s.RevisionHistoryLimit != nil {
		errs = append(errs, apivalidation.ValidateNonnegativeField(int64(*s.RevisionHistoryLimit), fld.Child("revisionHistoryLimit"))...)
	}
	if p := s.ProgressDeadlineSeconds; p != nil {
		errs = append(errs, apivalidation.ValidateNonnegativeField(int64(*p), fld.Child("progressDeadlineSeconds"))...)
		if *p <= s.MinReadySeconds {
			errs = append(errs, field.Invalid(fld.Child("progressDeadlineSeconds"), *p, "must be greater than minReadySeconds"))
		}
	}
	return errs
}

func validateStrategy(st *appsv1.DeploymentStrategy, fld *field.Path) field.ErrorList {
	switch st.Type {
	case appsv1.RecreateDeploymentStrategyType:
		if st.RollingUpdate != nil {
			return field.ErrorList{field.Forbidden(fld.Child("rollingUpdate"), "may not be specified when strategy `type` is 'Recreate'")}
		}
	case appsv1.RollingUpdateDeploymentStrategyType:
		if st.RollingUpdate == nil {
			return field.ErrorList{field.Required(fld.Child("rollingUpdate"), "this should be defaulted and never be nil")}
		}
		return workload.ValidateRollingUpdate(st.RollingUpdate.MaxUnavailable, st.RollingUpdate.MaxSurge, fld.Child("rollingUpdate"))
	default:
		v := strategyValue{Type: st.Type}
		if ru := st.RollingUpdate; ru != nil {
			v.RollingUpdate = &rollingUpdateValue{orZero(ru.MaxUnavailable), orZero(ru.MaxSurge)}
		}
		return field.ErrorList{field.NotSupported(fld, v, []string{string(appsv1.RecreateDeploymentStrategyType), string(appsv1.RollingUpdateDeploymentStrategyType)})}
	}
	return nil
}

func orZero(v *intstr.IntOrString) intstr.IntOrString {
	if v == nil {
		return intstr.FromInt32(0)
	}
	return *v
}

// validateStatusUpdate is upstream's ValidateDeploymentStatusUpdate: the
// counters, and a collisionCount that never goes down.
func validateStatusUpdate(d, old *appsv1.Deployment) field.ErrorList {
	st, fld := &d.Status, field.NewPath("status")
	errs := workload.ValidateReplicaCounts(workload.ReplicaCounts{Replicas: &st.Replicas, Updated: &st.UpdatedReplicas,
		Ready: &st.ReadyReplicas, Available: &st.AvailableReplicas, Unavailable: &st.UnavailableReplicas,
		Terminating: st.TerminatingReplicas, CollisionCount: st.CollisionCount, ObservedGeneration: st.ObservedGeneration}, fld)
	if now, was := st.CollisionCount, old.Status.CollisionCount; was != nil && (now == nil || *now < *was) {
		value := int32(0)
		if now != nil {
			value = *now
		}
		errs = append(errs, field.Invalid(fld.Child("collisionCount"), value, "cannot be decremented"))
	}
	return errs
}
