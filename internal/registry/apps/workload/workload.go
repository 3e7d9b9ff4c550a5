package workload

import (
	"strings"

	corev1 "k8s.io/api/core/v1"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/svcplane/svcplane/internal/registry/core/pod"
)

// ValidateReplicasAndTemplate checks replicas, the selector and that it
// selects the template's labels, and the pod template.
func ValidateReplicasAndTemplate(replicas *int32, selector *metav1.LabelSelector, tmpl *corev1.PodTemplateSpec, minReady int32, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	if replicas != nil && *replicas < 0 {
		errs = append(errs, field.Invalid(fld.Child("replicas"), *replicas, "must be greater than or equal to 0"))
	}
	if minReady < 0 {
		errs = append(errs, field.Invalid(fld.Child("minReadySeconds"), minReady, "must be greater than or equal to 0"))
	}
	if selector == nil {
		errs = append(errs, field.Required(fld.Child("selector"), ""))
	} else {
		errs = append(errs, metav1validation.ValidateLabelSelector(selector, metav1validation.LabelSelectorValidationOptions{}, fld.Child("selector"))...)
		if len(selector.MatchLabels)+len(selector.MatchExpressions) == 0 {
			errs = append(errs, field.Invalid(fld.Child("selector"), selector, "empty selector is invalid for deployment"))
		}
		if sel, err := metav1.LabelSelectorAsSelector(selector); err == nil && !sel.Empty() &&
			!sel.Matches(labels.Set(tmpl.Labels)) {
			errs = append(errs, field.Invalid(fld.Child("template", "metadata", "labels"), tmpl.Labels,
				"`selector` does not match template `labels`"))
		}
	}
	errs = append(errs, pod.ValidatePodTemplateSpec(tmpl, fld.Child("template"))...)
	if tmpl.Spec.RestartPolicy != "" && tmpl.Spec.RestartPolicy != corev1.RestartPolicyAlways {
		errs = append(errs, field.NotSupported(fld.Child("template", "spec", "restartPolicy"),
			tmpl.Spec.RestartPolicy, []corev1.RestartPolicy{corev1.RestartPolicyAlways}))
	}
	// Upstream's ValidatePodTemplateSpecForReplicaSet, for Deployments too.
	if tmpl.Spec.ActiveDeadlineSeconds != nil {
		errs = append(errs, field.Forbidden(fld.Child("template", "spec", "activeDeadlineSeconds"), "activeDeadlineSeconds in ReplicaSet is not Supported"))
	}
	return errs
}

// ValidateSelectorImmutable forbids changing spec.selector (apps/v1).
func ValidateSelectorImmutable(sel, old *metav1.LabelSelector) field.ErrorList {
	return apivalidation.ValidateImmutableField(sel, old, field.NewPath("spec", "selector"))
}

// ValidateRollingUpdate checks maxUnavailable/maxSurge.
func ValidateRollingUpdate(maxUnavailable, maxSurge *intstr.IntOrString, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	zero := func(v *intstr.IntOrString) bool {
		return v == nil || (v.Type == intstr.Int && v.IntVal == 0) || (v.Type == intstr.String && v.StrVal == "0%")
	}
	for name, v := range map[string]*intstr.IntOrString{"maxUnavailable": maxUnavailable, "maxSurge": maxSurge} {
		if v == nil {
			continue
		}
		if v.Type == intstr.Int && v.IntVal < 0 {
			errs = append(errs, field.Invalid(fld.Child(name), v.IntVal, "must be greater than or equal to 0"))
		}
		if v.Type == intstr.String {
			p, err := intstr.GetScaledValueFromIntOrPercent(v, 100, false)
			if err != nil || !strings.HasSuffix(v.StrVal, "%") {
				errs = append(errs, field.Invalid(fld.Child(name), v.StrVal, "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')"))
			} else if name == "maxUnavailable" && p > 100 {
				errs = append(errs, field.Invalid(fld.Child(name), v.StrVal, "must not be greater than 100%"))
			}
		}
	}
	if zero(maxUnavailable) && zero(maxSurge) {
		errs = append(errs, field.Invalid(fld.Child("maxUnavailable"), maxUnavailable, "may not be 0 when `maxSurge` is 0"))
	}
	return errs
}

// ContainersAndImages prints the container names and images of a pod spec.
func ContainersAndImages(spec *corev1.PodSpec) (string, string) {
	var names, images []string
	for _, c := range spec.Containers {
		names = append(names, c.Name)
		images = append(images, c.Image)
	}
	return strings.Join(names, ","), strings.Join(images, ",")
}

// SelectorString prints a label selector the way kubectl does.
func SelectorString(s *metav1.LabelSelector) string {
	sel, err := metav1.LabelSelectorAsSelector(s)
	if err != nil {
		return "<error>"
	}
	if sel.Empty() {
		return "<none>"
	}
	return sel.String()
}
