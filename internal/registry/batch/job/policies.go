package job

import (
	"fmt"
	"slices"

	batchv1 "k8s.io/api/batch/v1"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// validatePodFailurePolicy is upstream's: at most 20 rules, each with an
// action and exactly one of onExitCodes and onPodConditions.
func validatePodFailurePolicy(s *batchv1.JobSpec, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	rules := fld.Child("rules")
	if len(s.PodFailurePolicy.Rules) > maxPodFailurePolicyRules {
		errs = append(errs, field.TooMany(rules, len(s.PodFailurePolicy.Rules), maxPodFailurePolicyRules))
	}
	names := map[string]bool{}
	for _, c := range s.Template.Spec.Containers {
		names[c.Name] = true
	}
	for _, c := range s.Template.Spec.InitContainers {
		names[c.Name] = true
	}
	for i := range s.PodFailurePolicy.Rules {
		errs = append(errs, validateFailureRule(s, &s.PodFailurePolicy.Rules[i], rules.Index(i), names)...)
	}
	return errs
}

func validateFailureRule(s *batchv1.JobSpec, r *batchv1.PodFailurePolicyRule, fld *field.Path, names map[string]bool) field.ErrorList {
	var errs field.ErrorList
	action := fld.Child("action")
	switch {
	case r.Action == "":
		errs = append(errs, field.Required(action, fmt.Sprintf("valid values: %q", failurePolicyActions)))
	case r.Action == batchv1.PodFailurePolicyActionFailIndex:
		if s.BackoffLimitPerIndex == nil {
			errs = append(errs, field.Invalid(action, r.Action, "requires the backoffLimitPerIndex to be set"))
		}
	case !slices.Contains(failurePolicyActions, r.Action):
		errs = append(errs, field.NotSupported(action, r.Action, failurePolicyActions))
	}
	if r.OnExitCodes != nil {
		errs = append(errs, validateOnExitCodes(r.OnExitCodes, fld.Child("onExitCodes"), names)...)
	}
	if len(r.OnPodConditions) > 0 {
		errs = append(errs, validateOnPodConditions(r.OnPodConditions, fld.Child("onPodConditions"))...)
	}
	if r.OnExitCodes != nil && len(r.OnPodConditions) > 0 {
		errs = append(errs, field.Invalid(fld, field.OmitValueType{}, "specifying both OnExitCodes and OnPodConditions is not supported"))
	}
	if r.OnExitCodes == nil && len(r.OnPodConditions) == 0 {
		errs = append(errs, field.Invalid(fld, field.OmitValueType{}, "specifying one of OnExitCodes and OnPodConditions is required"))
	}
	return errs
}

func validateOnPodConditions(ps []batchv1.PodFailurePolicyOnPodConditionsPattern, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(ps) > maxOnPodConditionsPatterns {
		errs = append(errs, field.TooMany(fld, len(ps), maxOnPodConditionsPatterns))
	}
	for j, p := range ps {
		pf := fld.Index(j)
		for _, msg := range validation.IsQualifiedName(string(p.Type)) {
			errs = append(errs, field.Invalid(pf.Child("type"), string(p.Type), msg))
		}
		switch {
		case p.Status == "":
			errs = append(errs, field.Required(pf.Child("status"), fmt.Sprintf("valid values: %q", conditionStatuses)))
		case !slices.Contains(conditionStatuses, p.Status):
			errs = append(errs, field.NotSupported(pf.Child("status"), p.Status, conditionStatuses))
		}
	}
	return errs
}

func validateOnExitCodes(r *batchv1.PodFailurePolicyOnExitCodesRequirement, fld *field.Path, names map[string]bool) field.ErrorList {
	var errs field.ErrorList
	op := fld.Child("operator")
	switch {
	case r.Operator == "":
		errs = append(errs, field.Required(op, fmt.Sprintf("valid values: %q", exitCodeOperators)))
	case !slices.Contains(exitCodeOperators, r.Operator):
		errs = append(errs, field.NotSupported(op, r.Operator, exitCodeOperators))
	}
	if r.ContainerName != nil && !names[*r.ContainerName] {
		errs = append(errs, field.Invalid(fld.Child("containerName"), *r.ContainerName, "must be one of the container or initContainer names in the pod template"))
	}
	values := fld.Child("values")
	if len(r.Values) == 0 {
		errs = append(errs, field.Invalid(values, r.Values, "at least one value is required"))
	} else if len(r.Values) > maxOnExitCodesValues {
		errs = append(errs, field.TooMany(values, len(r.Values), maxOnExitCodesValues))
	}
	ordered := true
	seen := map[int32]bool{}
	for j, v := range r.Values {
		if r.Operator == batchv1.PodFailurePolicyOnExitCodesOpIn && v == 0 {
			errs = append(errs, field.Invalid(values.Index(j), v, "must not be 0 for the In operator"))
		}
		if seen[v] {
			errs = append(errs, field.Duplicate(values.Index(j), v))
		}
		seen[v] = true
		if j > 0 && r.Values[j-1] > v {
			ordered = false
		}
	}
	if !ordered {
		errs = append(errs, field.Invalid(values, r.Values, "must be ordered"))
	}
	return errs
}

func validateSuccessPolicy(s *batchv1.JobSpec, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	rules := fld.Child("rules")
	if len(s.SuccessPolicy.Rules) == 0 {
		errs = append(errs, field.Required(rules, "at least one rules must be specified when the successPolicy is specified"))
	}
	if len(s.SuccessPolicy.Rules) > maxSuccessPolicyRules {
		errs = append(errs, field.TooMany(rules, len(s.SuccessPolicy.Rules), maxSuccessPolicyRules))
	}
	for i, r := range s.SuccessPolicy.Rules {
		errs = append(errs, validateSuccessRule(s, &r, rules.Index(i))...)
	}
	return errs
}

func validateSuccessRule(s *batchv1.JobSpec, r *batchv1.SuccessPolicyRule, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	if r.SucceededCount == nil && r.SucceededIndexes == nil {
		errs = append(errs, field.Required(fld, "at least one of succeededCount or succeededIndexes must be specified"))
	}
	var total int32
	if r.SucceededIndexes != nil {
		p := fld.Child("succeededIndexes")
		if len(*r.SucceededIndexes) > maxSucceededIndexesLength {
			errs = append(errs, field.TooLong(p, "", maxSucceededIndexesLength))
		}
		var err error
		if total, err = indexesTotal(*r.SucceededIndexes, *s.Completions); err != nil {
			errs = append(errs, field.Invalid(p, *r.SucceededIndexes, fmt.Sprintf("error parsing succeededIndexes: %s", err.Error())))
		}
	}
	if r.SucceededCount != nil {
		p := fld.Child("succeededCount")
		errs = append(errs, apivalidation.ValidateNonnegativeField(int64(*r.SucceededCount), p)...)
		if *r.SucceededCount > *s.Completions {
			errs = append(errs, field.Invalid(p, *r.SucceededCount, fmt.Sprintf("must be less than or equal to %d (the number of specified completions)", *s.Completions)))
		}
		if r.SucceededIndexes != nil && *r.SucceededCount > total {
			errs = append(errs, field.Invalid(p, *r.SucceededCount, fmt.Sprintf("must be less than or equal to %d (the number of indexes in the specified succeededIndexes field)", total)))
		}
	}
	return errs
}
