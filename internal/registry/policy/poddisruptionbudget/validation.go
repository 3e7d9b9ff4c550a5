package poddisruptionbudget

import (
	policyv1 "k8s.io/api/policy/v1"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/svcplane/svcplane/internal/registry/apps/workload"
	"github.com/svcplane/svcplane/internal/registry/resource"
)

var evictionPolicies = []string{string(policyv1.AlwaysAllow), string(policyv1.IfHealthyBudget)}

// ValidateSpec checks a spec as upstream's ValidatePodDisruptionBudgetSpec.
func ValidateSpec(spec *policyv1.PodDisruptionBudgetSpec, allowInvalidLabelValue bool, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	if spec.MinAvailable != nil && spec.MaxUnavailable != nil {
		errs = append(errs, field.Invalid(fld, resource.AsInternal(*spec), "minAvailable and maxUnavailable cannot be both set"))
	}
	if v := spec.MinAvailable; v != nil {
		errs = append(errs, workload.ValidatePositiveIntOrPercent(*v, fld.Child("minAvailable"))...)
		errs = append(errs, workload.IsNotMoreThan100Percent(*v, fld.Child("minAvailable"))...)
	}
	if v := spec.MaxUnavailable; v != nil {
		errs = append(errs, workload.ValidatePositiveIntOrPercent(*v, fld.Child("maxUnavailable"))...)
		errs = append(errs, workload.IsNotMoreThan100Percent(*v, fld.Child("maxUnavailable"))...)
	}
	errs = append(errs, metav1validation.ValidateLabelSelector(spec.Selector,
		metav1validation.LabelSelectorValidationOptions{AllowInvalidLabelValueInSelector: allowInvalidLabelValue}, fld.Child("selector"))...)
	if p := spec.UnhealthyPodEvictionPolicy; p != nil {
		switch *p {
		case policyv1.AlwaysAllow, policyv1.IfHealthyBudget:
		default:
			errs = append(errs, field.NotSupported(fld.Child("unhealthyPodEvictionPolicy"), *p, evictionPolicies))
		}
	}
	return errs
}

// ValidateStatus checks a status update as upstream's
// ValidatePodDisruptionBudgetStatusUpdate (policy/v1).
func ValidateStatus(s *policyv1.PodDisruptionBudgetStatus, fld *field.Path) field.ErrorList {
	errs := metav1validation.ValidateConditions(s.Conditions, fld.Child("conditions"))
	errs = append(errs, apivalidation.ValidateNonnegativeField(int64(s.DisruptionsAllowed), fld.Child("disruptionsAllowed"))...)
	errs = append(errs, apivalidation.ValidateNonnegativeField(int64(s.CurrentHealthy), fld.Child("currentHealthy"))...)
	errs = append(errs, apivalidation.ValidateNonnegativeField(int64(s.DesiredHealthy), fld.Child("desiredHealthy"))...)
	return append(errs, apivalidation.ValidateNonnegativeField(int64(s.ExpectedPods), fld.Child("expectedPods"))...)
}
