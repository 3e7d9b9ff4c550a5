package horizontalpodautoscaler

import (
	"fmt"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	"k8s.io/apimachinery/pkg/api/validate/content"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/svcplane/svcplane/internal/registry/core/pod"
)

// The largest scaling policy period and stabilization window.
const (
	MaxPeriodSeconds              int32 = 1800
	MaxStabilizationWindowSeconds int32 = 3600
)

// refOptions are upstream's CrossVersionObjectReferenceValidationOptions.
type refOptions struct {
	allowEmptyAPIGroup, allowInvalidAPIVersion bool
}

// specOptions are upstream's HorizontalPodAutoscalerSpecValidationOptions.
type specOptions struct {
	minReplicasLowerBound int32
	scaleTargetRef        refOptions
	objectMetrics         refOptions
}

// optionsFor is upstream's validationOptionsForHorizontalPodAutoscaler
// with HPAScaleToZero off (1.36's default): minReplicas ≥ 1 unless the
// stored one was 0; an unchanged scale target kind and apiVersion are not
// checked again; a ReplicationController target needs no group; object
// metrics already invalid stay allowed.
func optionsFor(hpa, old *autoscalingv2.HorizontalPodAutoscaler) specOptions {
	opts := specOptions{minReplicasLowerBound: 1, objectMetrics: refOptions{allowEmptyAPIGroup: true}}
	if old != nil && old.Spec.MinReplicas != nil && *old.Spec.MinReplicas == 0 {
		opts.minReplicasLowerBound = 0
	}
	switch {
	case old != nil && old.Spec.ScaleTargetRef.APIVersion == hpa.Spec.ScaleTargetRef.APIVersion && old.Spec.ScaleTargetRef.Kind == hpa.Spec.ScaleTargetRef.Kind:
		opts.scaleTargetRef.allowInvalidAPIVersion = true
	case hpa.Spec.ScaleTargetRef.Kind == "ReplicationController":
		opts.scaleTargetRef.allowEmptyAPIGroup = true
	}
	if old != nil {
		for _, m := range old.Spec.Metrics {
			if m.Type == autoscalingv2.ObjectMetricSourceType && m.Object != nil && validateAPIVersion(m.Object.DescribedObject, opts.objectMetrics) != nil {
				opts.objectMetrics.allowInvalidAPIVersion = true
				break
			}
		}
	}
	return opts
}

// ValidateSpec is upstream's validateHorizontalPodAutoscalerSpec (old nil
// on create).
func ValidateSpec(hpa, old *autoscalingv2.HorizontalPodAutoscaler) field.ErrorList {
	opts := optionsFor(hpa, old)
	s, fld := &hpa.Spec, field.NewPath("spec")
	var errs field.ErrorList
	if s.MinReplicas != nil && *s.MinReplicas < opts.minReplicasLowerBound {
		errs = append(errs, field.Invalid(fld.Child("minReplicas"), *s.MinReplicas, fmt.Sprintf("must be greater than or equal to %d", opts.minReplicasLowerBound)))
	}
	if s.MaxReplicas == 0 {
		errs = append(errs, field.Required(fld.Child("maxReplicas"), "must be set and greater than 0"))
	} else if s.MaxReplicas < 0 {
		errs = append(errs, field.Invalid(fld.Child("maxReplicas"), s.MaxReplicas, "must be greater than or equal to 1"))
	}
	if s.MinReplicas != nil && s.MaxReplicas < *s.MinReplicas {
		errs = append(errs, field.Invalid(fld.Child("maxReplicas"), s.MaxReplicas, "must be greater than or equal to `minReplicas`"))
	}
	errs = append(errs, validateRef(s.ScaleTargetRef, fld.Child("scaleTargetRef"), opts.scaleTargetRef)...)
	errs = append(errs, validateMetrics(s.Metrics, fld.Child("metrics"), s.MinReplicas, opts.objectMetrics)...)
	if b := s.Behavior; b != nil {
		errs = append(errs, validateRules(b.ScaleUp, fld.Child("behavior", "scaleUp"))...)
		errs = append(errs, validateRules(b.ScaleDown, fld.Child("behavior", "scaleDown"))...)
	}
	return errs
}

// ValidateStatus is upstream's status update check (beyond the metadata).
func ValidateStatus(hpa *autoscalingv2.HorizontalPodAutoscaler) field.ErrorList {
	fld := field.NewPath("status")
	errs := apivalidation.ValidateNonnegativeField(int64(hpa.Status.CurrentReplicas), fld.Child("currentReplicas"))
	return append(errs, apivalidation.ValidateNonnegativeField(int64(hpa.Status.DesiredReplicas), fld.Child("desiredReplicas"))...)
}

func validateRef(ref autoscalingv2.CrossVersionObjectReference, fld *field.Path, opts refOptions) field.ErrorList {
	var errs field.ErrorList
	if ref.Kind == "" {
		errs = append(errs, field.Required(fld.Child("kind"), ""))
	} else {
		for _, msg := range content.IsPathSegmentName(ref.Kind) {
			errs = append(errs, field.Invalid(fld.Child("kind"), ref.Kind, msg))
		}
	}
	if ref.Name == "" {
		errs = append(errs, field.Required(fld.Child("name"), ""))
	} else {
		for _, msg := range content.IsPathSegmentName(ref.Name) {
			errs = append(errs, field.Invalid(fld.Child("name"), ref.Name, msg))
		}
	}
	if err := validateAPIVersion(ref, opts); err != nil {
		errs = append(errs, field.Invalid(fld.Child("apiVersion"), ref.APIVersion, err.Error()))
	}
	return errs
}

func validateAPIVersion(ref autoscalingv2.CrossVersionObjectReference, opts refOptions) error {
	if opts.allowInvalidAPIVersion {
		return nil
	}
	gv, err := schema.ParseGroupVersion(ref.APIVersion)
	if err != nil {
		return err
	}
	if !opts.allowEmptyAPIGroup && gv.Group == "" {
		return fmt.Errorf("apiVersion must specify API group")
	}
	return nil
}

func validateMetrics(metrics []autoscalingv2.MetricSpec, fld *field.Path, minReplicas *int32, opts refOptions) field.ErrorList {
	var errs field.ErrorList
	objectOrExternal := false
	for i := range metrics {
		errs = append(errs, validateMetricSpec(&metrics[i], fld.Index(i), opts)...)
		if t := metrics[i].Type; t == autoscalingv2.ObjectMetricSourceType || t == autoscalingv2.ExternalMetricSourceType {
			objectOrExternal = true
		}
	}
	if minReplicas != nil && *minReplicas == 0 && !objectOrExternal {
		errs = append(errs, field.Forbidden(fld, "must specify at least one Object or External metric to support scaling to zero replicas"))
	}
	return errs
}

var selectPolicies = []string{string(autoscalingv2.DisabledPolicySelect), string(autoscalingv2.MaxChangePolicySelect), string(autoscalingv2.MinChangePolicySelect)}

func validateRules(r *autoscalingv2.HPAScalingRules, fld *field.Path) field.ErrorList {
	if r == nil {
		return nil
	}
	var errs field.ErrorList
	if w := r.StabilizationWindowSeconds; w != nil && *w < 0 {
		errs = append(errs, field.Invalid(fld.Child("stabilizationWindowSeconds"), w, "must be greater than or equal to zero"))
	}
	if w := r.StabilizationWindowSeconds; w != nil && *w > MaxStabilizationWindowSeconds {
		errs = append(errs, field.Invalid(fld.Child("stabilizationWindowSeconds"), w, fmt.Sprintf("must be less than or equal to %v", MaxStabilizationWindowSeconds)))
	}
	if p := r.SelectPolicy; p != nil && !contains(selectPolicies, string(*p)) {
		errs = append(errs, field.NotSupported(fld.Child("selectPolicy"), p, selectPolicies))
	}
	policies := fld.Child("policies")
	if len(r.Policies) == 0 {
		errs = append(errs, field.Required(policies, "must specify at least one Policy"))
	}
	for i, p := range r.Policies {
		errs = append(errs, validatePolicy(p, policies.Index(i))...)
	}
	if r.Tolerance != nil {
		errs = append(errs, pod.ValidateNonnegativeQuantity(*r.Tolerance, fld.Child("tolerance"))...)
	}
	return errs
}

var policyTypes = []string{string(autoscalingv2.PercentScalingPolicy), string(autoscalingv2.PodsScalingPolicy)}

func validatePolicy(p autoscalingv2.HPAScalingPolicy, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	if p.Type != autoscalingv2.PodsScalingPolicy && p.Type != autoscalingv2.PercentScalingPolicy {
		errs = append(errs, field.NotSupported(fld.Child("type"), p.Type, policyTypes))
	}
	if p.Value <= 0 {
		errs = append(errs, field.Invalid(fld.Child("value"), p.Value, "must be greater than zero"))
	}
	if p.PeriodSeconds <= 0 {
		errs = append(errs, field.Invalid(fld.Child("periodSeconds"), p.PeriodSeconds, "must be greater than zero"))
	}
	if p.PeriodSeconds > MaxPeriodSeconds {
		errs = append(errs, field.Invalid(fld.Child("periodSeconds"), p.PeriodSeconds, fmt.Sprintf("must be less than or equal to %v", MaxPeriodSeconds)))
	}
	return errs
}

// metricSourceTypes sorted, as upstream's set lists them.
var metricSourceTypes = []string{string(autoscalingv2.ContainerResourceMetricSourceType), string(autoscalingv2.ExternalMetricSourceType),
	string(autoscalingv2.ObjectMetricSourceType), string(autoscalingv2.PodsMetricSourceType), string(autoscalingv2.ResourceMetricSourceType)}

func validateMetricSpec(m *autoscalingv2.MetricSpec, fld *field.Path, opts refOptions) field.ErrorList {
	var errs field.ErrorList
	if m.Type == "" {
		errs = append(errs, field.Required(fld.Child("type"), "must specify a metric source type"))
	}
	if !contains(metricSourceTypes, string(m.Type)) {
		errs = append(errs, field.NotSupported(fld.Child("type"), m.Type, metricSourceTypes))
	}
	// Only the first source present (in upstream's order) is checked.
	var present []string
	check := func(name string, set bool, validate func() field.ErrorList) {
		if !set {
			return
		}
		present = append(present, name)
		if len(present) == 1 {
			errs = append(errs, validate()...)
		}
	}
	check("object", m.Object != nil, func() field.ErrorList { return validateObjectSource(m.Object, fld.Child("object"), opts) })
	check("external", m.External != nil, func() field.ErrorList { return validateExternalSource(m.External, fld.Child("external")) })
	check("pods", m.Pods != nil, func() field.ErrorList { return validatePodsSource(m.Pods, fld.Child("pods")) })
	check("resource", m.Resource != nil, func() field.ErrorList { return validateResourceSource(m.Resource, fld.Child("resource")) })
	check("containerResource", m.ContainerResource != nil, func() field.ErrorList {
		return validateContainerResourceSource(m.ContainerResource, fld.Child("containerResource"))
	})

	expected := ""
	missing := func(name string, set bool) {
		expected = name
		if !set {
			errs = append(errs, field.Required(fld.Child(name), "must populate information for the given metric source"))
		}
	}
	switch m.Type {
	case autoscalingv2.ObjectMetricSourceType:
		missing("object", m.Object != nil)
	case autoscalingv2.PodsMetricSourceType:
		missing("pods", m.Pods != nil)
	case autoscalingv2.ResourceMetricSourceType:
		missing("resource", m.Resource != nil)
	case autoscalingv2.ExternalMetricSourceType:
		missing("external", m.External != nil)
	case autoscalingv2.ContainerResourceMetricSourceType:
		missing("containerResource", m.ContainerResource != nil)
	default:
		errs = append(errs, field.NotSupported(fld.Child("type"), m.Type, metricSourceTypes))
	}
	if len(present) != 1 {
		for _, name := range present {
			if name != expected {
				errs = append(errs, field.Forbidden(fld.Child(name), "must populate the given metric source only"))
			}
		}
	}
	return errs
}

func validateObjectSource(src *autoscalingv2.ObjectMetricSource, fld *field.Path, opts refOptions) field.ErrorList {
	errs := validateRef(src.DescribedObject, fld.Child("describedObject"), opts)
	errs = append(errs, validateMetricIdentifier(src.Metric, fld.Child("metric"))...)
	errs = append(errs, validateTarget(src.Target, fld.Child("target"))...)
	if src.Target.Value == nil && src.Target.AverageValue == nil {
		errs = append(errs, field.Required(fld.Child("target", "averageValue"), "must set either a target value or averageValue"))
	}
	return errs
}

func validateExternalSource(src *autoscalingv2.ExternalMetricSource, fld *field.Path) field.ErrorList {
	errs := validateMetricIdentifier(src.Metric, fld.Child("metric"))
	errs = append(errs, validateTarget(src.Target, fld.Child("target"))...)
	if src.Target.Value == nil && src.Target.AverageValue == nil {
		errs = append(errs, field.Required(fld.Child("target", "averageValue"), "must set either a target value for metric or a per-pod target"))
	}
	if src.Target.Value != nil && src.Target.AverageValue != nil {
		errs = append(errs, field.Forbidden(fld.Child("target", "value"), "may not set both a target value for metric and a per-pod target"))
	}
	return errs
}

func validatePodsSource(src *autoscalingv2.PodsMetricSource, fld *field.Path) field.ErrorList {
	errs := validateMetricIdentifier(src.Metric, fld.Child("metric"))
	errs = append(errs, validateTarget(src.Target, fld.Child("target"))...)
	if src.Target.AverageValue == nil {
		errs = append(errs, field.Required(fld.Child("target", "averageValue"), "must specify a positive target averageValue"))
	}
	return errs
}

func validateContainerResourceSource(src *autoscalingv2.ContainerResourceMetricSource, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	if src.Name == "" {
		errs = append(errs, field.Required(fld.Child("name"), "must specify a resource name"))
	} else {
		errs = append(errs, pod.ValidateContainerResourceName(src.Name, fld.Child("name"))...)
	}
	if src.Container == "" {
		errs = append(errs, field.Required(fld.Child("container"), "must specify a container"))
	} else {
		for _, msg := range validation.IsDNS1123Label(src.Container) {
			errs = append(errs, field.Invalid(fld.Child("container"), src.Container, msg))
		}
	}
	return append(errs, validateUtilizationTarget(src.Target, fld.Child("target"))...)
}

func validateResourceSource(src *autoscalingv2.ResourceMetricSource, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	if src.Name == "" {
		errs = append(errs, field.Required(fld.Child("name"), "must specify a resource name"))
	}
	return append(errs, validateUtilizationTarget(src.Target, fld.Child("target"))...)
}

// validateUtilizationTarget: a (container) resource's target is a
// utilization or an average value.
func validateUtilizationTarget(t autoscalingv2.MetricTarget, fld *field.Path) field.ErrorList {
	errs := validateTarget(t, fld)
	if t.AverageUtilization == nil && t.AverageValue == nil {
		errs = append(errs, field.Required(fld.Child("averageUtilization"), "must set either a target raw value or a target utilization"))
	}
	if t.AverageUtilization != nil && t.AverageValue != nil {
		errs = append(errs, field.Forbidden(fld.Child("averageValue"), "may not set both a target raw value and a target utilization"))
	}
	return errs
}

func validateTarget(t autoscalingv2.MetricTarget, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	if t.Type == "" {
		errs = append(errs, field.Required(fld.Child("type"), "must specify a metric target type"))
	}
	if t.Type != autoscalingv2.UtilizationMetricType && t.Type != autoscalingv2.ValueMetricType && t.Type != autoscalingv2.AverageValueMetricType {
		errs = append(errs, field.Invalid(fld.Child("type"), t.Type, "must be either Utilization, Value, or AverageValue"))
	}
	if t.Value != nil && t.Value.Sign() != 1 {
		errs = append(errs, field.Invalid(fld.Child("value"), t.Value, "must be positive"))
	}
	if t.AverageValue != nil && t.AverageValue.Sign() != 1 {
		errs = append(errs, field.Invalid(fld.Child("averageValue"), t.AverageValue, "must be positive"))
	}
	if t.AverageUtilization != nil && *t.AverageUtilization < 1 {
		errs = append(errs, field.Invalid(fld.Child("averageUtilization"), t.AverageUtilization, "must be greater than 0"))
	}
	return errs
}

func validateMetricIdentifier(id autoscalingv2.MetricIdentifier, fld *field.Path) field.ErrorList {
	if id.Name == "" {
		return field.ErrorList{field.Required(fld.Child("name"), "must specify a metric name")}
	}
	var errs field.ErrorList
	for _, msg := range content.IsPathSegmentName(id.Name) {
		errs = append(errs, field.Invalid(fld.Child("name"), id.Name, msg))
	}
	return errs
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
