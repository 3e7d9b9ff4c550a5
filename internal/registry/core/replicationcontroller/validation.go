package replicationcontroller

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/svcplane/svcplane/internal/registry/core/pod"
)

const nonNegative = "must be greater than or equal to 0"

// ValidateSpec is upstream's ValidateReplicationControllerSpec (the
// selector may change: no immutability, unlike apps/v1).
func ValidateSpec(spec *corev1.ReplicationControllerSpec, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	if spec.MinReadySeconds < 0 {
		errs = append(errs, field.Invalid(fld.Child("minReadySeconds"), spec.MinReadySeconds, nonNegative))
	}
	selector := labels.Set(spec.Selector).AsSelector()
	if selector.Empty() {
		errs = append(errs, field.Required(fld.Child("selector"), ""))
	}
	if spec.Replicas == nil {
		errs = append(errs, field.Required(fld.Child("replicas"), ""))
	} else if *spec.Replicas < 0 {
		errs = append(errs, field.Invalid(fld.Child("replicas"), *spec.Replicas, nonNegative))
	}
	return append(errs, validateTemplate(spec.Template, selector, fld.Child("template"))...)
}

// validateTemplate is upstream's ValidatePodTemplateSpecForRC.
func validateTemplate(t *corev1.PodTemplateSpec, selector labels.Selector, fld *field.Path) field.ErrorList {
	if t == nil {
		return field.ErrorList{field.Required(fld, "")}
	}
	var errs field.ErrorList
	if !selector.Empty() && !selector.Matches(labels.Set(t.Labels)) {
		errs = append(errs, field.Invalid(fld.Child("metadata", "labels"), t.Labels, "`selector` does not match template `labels`"))
	}
	errs = append(errs, pod.ValidatePodTemplateSpec(t, fld)...)
	if t.Spec.RestartPolicy != corev1.RestartPolicyAlways {
		errs = append(errs, field.NotSupported(fld.Child("spec", "restartPolicy"), t.Spec.RestartPolicy,
			[]corev1.RestartPolicy{corev1.RestartPolicyAlways}))
	}
	if t.Spec.ActiveDeadlineSeconds != nil {
		errs = append(errs, field.Forbidden(fld.Child("spec", "activeDeadlineSeconds"),
			"activeDeadlineSeconds in ReplicationController is not Supported"))
	}
	return errs
}

// ValidateStatus is upstream's ValidateReplicationControllerStatus.
func ValidateStatus(s *corev1.ReplicationControllerStatus, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, f := range []struct {
		name string
		v    int64
	}{{"replicas", int64(s.Replicas)}, {"fullyLabeledReplicas", int64(s.FullyLabeledReplicas)},
		{"readyReplicas", int64(s.ReadyReplicas)}, {"availableReplicas", int64(s.AvailableReplicas)},
		{"observedGeneration", s.ObservedGeneration}} {
		if f.v < 0 {
			errs = append(errs, field.Invalid(fld.Child(f.name), f.v, nonNegative))
		}
	}
	const msg = "cannot be greater than status.replicas"
	if s.FullyLabeledReplicas > s.Replicas {
		errs = append(errs, field.Invalid(fld.Child("fullyLabeledReplicas"), s.FullyLabeledReplicas, msg))
	}
	if s.ReadyReplicas > s.Replicas {
		errs = append(errs, field.Invalid(fld.Child("readyReplicas"), s.ReadyReplicas, msg))
	}
	if s.AvailableReplicas > s.Replicas {
		errs = append(errs, field.Invalid(fld.Child("availableReplicas"), s.AvailableReplicas, msg))
	}
	if s.AvailableReplicas > s.ReadyReplicas {
		errs = append(errs, field.Invalid(fld.Child("availableReplicas"), s.AvailableReplicas, "cannot be greater than readyReplicas"))
	}
	return errs
}
