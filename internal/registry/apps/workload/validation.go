package workload

import (
	"strconv"

	corev1 "k8s.io/api/core/v1"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/svcplane/svcplane/internal/registry/core/pod"
)

// ValidateReplicasAndTemplate checks replicas, minReadySeconds, the
// selector and the pod template it must select, as upstream's
// ValidateReplicaSetSpec (and the same part of ValidateDeploymentSpec).
func ValidateReplicasAndTemplate(replicas *int32, selector *metav1.LabelSelector, tmpl *corev1.PodTemplateSpec, minReady int32, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	if replicas != nil {
		errs = append(errs, apivalidation.ValidateNonnegativeField(int64(*replicas), fld.Child("replicas"))...)
	}
	errs = append(errs, apivalidation.ValidateNonnegativeField(int64(minReady), fld.Child("minReadySeconds"))...)
	return append(errs, ValidateSelectorAndTemplate(selector, tmpl, fld)...)
}

// ValidateSelectorAndTemplate: a selector is required and strictly valid
// and not empty; an invalid one stops there, else it must select the
// template's labels and the template must be a valid always-restarting
// template without a deadline.
func ValidateSelectorAndTemplate(selector *metav1.LabelSelector, tmpl *corev1.PodTemplateSpec, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	if selector == nil {
		errs = append(errs, field.Required(fld.Child("selector"), ""))
	} else {
		errs = append(errs, metav1validation.ValidateLabelSelector(selector, metav1validation.LabelSelectorValidationOptions{}, fld.Child("selector"))...)
		if len(selector.MatchLabels)+len(selector.MatchExpressions) == 0 {
			errs = append(errs, field.Invalid(fld.Child("selector"), selector, "empty selector is invalid for deployment"))
		}
	}
	sel, err := metav1.LabelSelectorAsSelector(selector)
	if err != nil {
		return append(errs, field.Invalid(fld.Child("selector"), selector, "invalid label selector"))
	}
	return append(errs, validateTemplate(tmpl, sel, fld.Child("template"))...)
}

// validateTemplate is upstream's ValidatePodTemplateSpecForReplicaSet.
func validateTemplate(tmpl *corev1.PodTemplateSpec, sel labels.Selector, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	if !sel.Empty() && !sel.Matches(labels.Set(tmpl.Labels)) {
		errs = append(errs, field.Invalid(fld.Child("metadata", "labels"), tmpl.Labels, "`selector` does not match template `labels`"))
	}
	errs = append(errs, pod.ValidatePodTemplateSpec(tmpl, fld)...)
	if tmpl.Spec.RestartPolicy != corev1.RestartPolicyAlways {
		errs = append(errs, field.NotSupported(fld.Child("spec", "restartPolicy"), tmpl.Spec.RestartPolicy, []string{string(corev1.RestartPolicyAlways)}))
	}
	if tmpl.Spec.ActiveDeadlineSeconds != nil {
		errs = append(errs, field.Forbidden(fld.Child("spec", "activeDeadlineSeconds"), "activeDeadlineSeconds in ReplicaSet is not Supported"))
	}
	return errs
}

// ValidateSelectorImmutable forbids changing spec.selector (apps/v1).
func ValidateSelectorImmutable(sel, old *metav1.LabelSelector) field.ErrorList {
	return apivalidation.ValidateImmutableField(sel, old, field.NewPath("spec", "selector"))
}

// ValidateRollingUpdate checks maxUnavailable and maxSurge as upstream's
// ValidateRollingUpdateDeployment (nil stands for 0, as upstream's
// internal type has it).
func ValidateRollingUpdate(maxUnavailable, maxSurge *intstr.IntOrString, fld *field.Path) field.ErrorList {
	mu, ms := valueOrZero(maxUnavailable), valueOrZero(maxSurge)
	errs := validatePositiveIntOrPercent(mu, fld.Child("maxUnavailable"))
	errs = append(errs, validatePositiveIntOrPercent(ms, fld.Child("maxSurge"))...)
	if intOrPercentValue(mu) == 0 && intOrPercentValue(ms) == 0 {
		errs = append(errs, field.Invalid(fld.Child("maxUnavailable"), mu, "may not be 0 when `maxSurge` is 0"))
	}
	if v, ok := percentValue(mu); ok && v > 100 {
		errs = append(errs, field.Invalid(fld.Child("maxUnavailable"), mu, "must not be greater than 100%"))
	}
	return errs
}

func valueOrZero(v *intstr.IntOrString) intstr.IntOrString {
	if v == nil {
		return intstr.FromInt32(0)
	}
	return *v
}

func validatePositiveIntOrPercent(v intstr.IntOrString, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	switch v.Type {
	case intstr.String:
		for _, msg := range validation.IsValidPercent(v.StrVal) {
			errs = append(errs, field.Invalid(fld, v, msg))
		}
	case intstr.Int:
		errs = append(errs, apivalidation.ValidateNonnegativeField(int64(v.IntValue()), fld)...)
	default:
		errs = append(errs, field.Invalid(fld, v, "must be an integer or percentage (e.g '5%%')"))
	}
	return errs
}

func percentValue(v intstr.IntOrString) (int, bool) {
	if v.Type != intstr.String || len(validation.IsValidPercent(v.StrVal)) != 0 {
		return 0, false
	}
	n, _ := strconv.Atoi(v.StrVal[:len(v.StrVal)-1])
	return n, true
}

func intOrPercentValue(v intstr.IntOrString) int {
	if n, ok := percentValue(v); ok {
		return n
	}
	return v.IntValue()
}

// ValidatePositiveIntOrPercent checks a count or a percentage as
// upstream's apps ValidatePositiveIntOrPercent (PodDisruptionBudgets use
// it too).
func ValidatePositiveIntOrPercent(v intstr.IntOrString, fld *field.Path) field.ErrorList {
	return validatePositiveIntOrPercent(v, fld)
}

// IsNotMoreThan100Percent refuses a percentage above 100% (upstream's
// apps IsNotMoreThan100Percent).
func IsNotMoreThan100Percent(v intstr.IntOrString, fld *field.Path) field.ErrorList {
	if n, ok := percentValue(v); ok && n > 100 {
		return field.ErrorList{field.Invalid(fld, v, "must not be greater than 100%")}
	}
	return nil
}
