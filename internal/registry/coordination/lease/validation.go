package lease

import (
	"slices"
	"strings"

	coordinationv1 "k8s.io/api/coordination/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

var validStrategies = []coordinationv1.CoordinatedLeaseStrategy{coordinationv1.OldestEmulationVersion}

// validateSpec checks a lease's spec as upstream's ValidateLeaseSpec.
func validateSpec(s *coordinationv1.LeaseSpec, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	if s.LeaseDurationSeconds != nil && *s.LeaseDurationSeconds <= 0 {
		errs = append(errs, field.Invalid(fld.Child("leaseDurationSeconds"), s.LeaseDurationSeconds, "must be greater than 0"))
	}
	if s.LeaseTransitions != nil && *s.LeaseTransitions < 0 {
		errs = append(errs, field.Invalid(fld.Child("leaseTransitions"), s.LeaseTransitions, "must be greater than or equal to 0"))
	}
	if s.Strategy != nil {
		errs = append(errs, validateStrategy(*s.Strategy, fld.Child("strategy"))...)
	}
	if s.PreferredHolder != nil && *s.PreferredHolder != "" && (s.Strategy == nil || *s.Strategy == "") {
		errs = append(errs, field.Forbidden(fld.Child("preferredHolder"), "may only be specified if `strategy` is defined"))
	}
	return errs
}

// validateStrategy: a Kubernetes strategy name, or a qualified name of
// one's own (upstream's ValidateCoordinatedLeaseStrategy, including its
// path spec.strategy.strategy).
func validateStrategy(s coordinationv1.CoordinatedLeaseStrategy, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	if !strings.Contains(string(s), "/") {
		if !slices.Contains(validStrategies, s) {
			errs = append(errs, field.NotSupported(fld.Child("strategy"), s, validStrategies))
		}
		return errs
	}
	for _, msg := range validation.IsQualifiedName(string(s)) {
		errs = append(errs, field.Invalid(fld.Child("strategy"), s, msg))
	}
	return errs
}
