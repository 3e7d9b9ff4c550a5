package runtimeclass

import (
	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/svcplane/svcplane/internal/registry/core/pod"
	"github.com/svcplane/svcplane/internal/registry/resource"
)

// Validate checks a RuntimeClass as upstream's ValidateRuntimeClass
// (beyond the object meta).
func Validate(rc *nodev1.RuntimeClass) field.ErrorList {
	var errs field.ErrorList
	if rc.Handler == "" {
		errs = append(errs, field.Required(field.NewPath("handler"), ""))
	} else {
		for _, msg := range apivalidation.NameIsDNSLabel(rc.Handler, false) {
			errs = append(errs, field.Invalid(field.NewPath("handler"), rc.Handler, msg))
		}
	}
	if rc.Overhead != nil {
		errs = append(errs, pod.ValidateContainerResourceRequirements(
			&corev1.ResourceRequirements{Limits: rc.Overhead.PodFixed}, field.NewPath("overhead"))...)
	}
	if s := rc.Scheduling; s != nil {
		fld := field.NewPath("scheduling")
		if s.NodeSelector != nil {
			errs = append(errs, metav1validation.ValidateLabels(s.NodeSelector, fld.Child("nodeSelector"))...)
		}
		errs = append(errs, validateTolerations(s.Tolerations, fld.Child("tolerations"))...)
	}
	return errs
}

// validateTolerations: each valid, no two with the same key, operator,
// value and effect.
func validateTolerations(ts []corev1.Toleration, fld *field.Path) field.ErrorList {
	errs := pod.ValidateTolerations(ts, fld)
	seen := map[corev1.Toleration]bool{}
	for i, t := range ts {
		key := corev1.Toleration{Key: t.Key, Operator: t.Operator, Value: t.Value, Effect: t.Effect}
		if seen[key] {
			errs = append(errs, field.Duplicate(fld.Index(i), resource.AsInternal(t)))
		}
		seen[key] = true
	}
	return errs
}

// ValidateUpdate is upstream's ValidateRuntimeClassUpdate beyond the
// metadata: the handler is immutable.
func ValidateUpdate(rc, old *nodev1.RuntimeClass) field.ErrorList {
	return apivalidation.ValidateImmutableField(rc.Handler, old.Handler, field.NewPath("handler"))
}
