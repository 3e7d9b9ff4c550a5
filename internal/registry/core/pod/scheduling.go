package pod

import (
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// validateAffinity checks node, pod and pod anti-affinity as upstream's
// validateAffinity.
func validateAffinity(a *corev1.Affinity, fld *field.Path) field.ErrorList {
	if a == nil {
		return nil
	}
	var errs field.ErrorList
	if na := a.NodeAffinity; na != nil {
		p := fld.Child("nodeAffinity")
		if r := na.RequiredDuringSchedulingIgnoredDuringExecution; r != nil {
			errs = append(errs, validateNodeSelector(r, p.Child("requiredDuringSchedulingIgnoredDuringExecution"))...)
		}
		for i, t := range na.PreferredDuringSchedulingIgnoredDuringExecution {
			tp := p.Child("preferredDuringSchedulingIgnoredDuringExecution").Index(i)
			errs = append(errs, validateWeight(t.Weight, tp.Child("weight"))...)
			errs = append(errs, validateNodeSelectorTerm(t.Preference, true, tp.Child("preference"))...)
		}
	}
	if pa := a.PodAffinity; pa != nil {
		errs = append(errs, validatePodAffinityTerms(pa.RequiredDuringSchedulingIgnoredDuringExecution, pa.PreferredDuringSchedulingIgnoredDuringExecution, fld.Child("podAffinity"))...)
	}
	if pa := a.PodAntiAffinity; pa != nil {
		errs = append(errs, validatePodAffinityTerms(pa.RequiredDuringSchedulingIgnoredDuringExecution, pa.PreferredDuringSchedulingIgnoredDuringExecution, fld.Child("podAntiAffinity"))...)
	}
	return errs
}

func validateWeight(w int32, fld *field.Path) field.ErrorList {
	if w <= 0 || w > 100 {
		return field.ErrorList{field.Invalid(fld, w, "must be in the range 1-100")}
	}
	return nil
}

func validateNodeSelector(s *corev1.NodeSelector, fld *field.Path) field.ErrorList {
	terms := fld.Child("nodeSelectorTerms")
	if len(s.NodeSelectorTerms) == 0 {
		return field.ErrorList{field.Required(terms, "must have at least one node selector term")}
	}
	var errs field.ErrorList
	for i, t := range s.NodeSelectorTerms {
		errs = append(errs, validateNodeSelectorTerm(t, false, terms.Index(i))...)
	}
	return errs
}

func validateNodeSelectorTerm(t corev1.NodeSelectorTerm, allowInvalidValues bool, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	for j, r := range t.MatchExpressions {
		errs = append(errs, validateNodeSelectorRequirement(r, allowInvalidValues, fld.Child("matchExpressions").Index(j))...)
	}
	for j, r := range t.MatchFields {
		errs = append(errs, validateNodeFieldSelectorRequirement(r, fld.Child("matchFields").Index(j))...)
	}
	return errs
}

func validateNodeSelectorRequirement(r corev1.NodeSelectorRequirement, allowInvalidValues bool, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	switch r.Operator {
	case corev1.NodeSelectorOpIn, corev1.NodeSelectorOpNotIn:
		if len(r.Values) == 0 {
			errs = append(errs, field.Required(fld.Child("values"), "must be specified when `operator` is 'In' or 'NotIn'"))
		}
	case corev1.NodeSelectorOpExists, corev1.NodeSelectorOpDoesNotExist:
		if len(r.Values) > 0 {
			errs = append(errs, field.Forbidden(fld.Child("values"), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"))
		}
	case corev1.NodeSelectorOpGt, corev1.NodeSelectorOpLt:
		if len(r.Values) != 1 {
			errs = append(errs, field.Required(fld.Child("values"), "must be specified single value when `operator` is 'Lt' or 'Gt'"))
		}
	default:
		errs = append(errs, field.Invalid(fld.Child("operator"), r.Operator, "not a valid selector operator"))
	}
	errs = append(errs, metav1validation.ValidateLabelName(r.Key, fld.Child("key"))...)
	if !allowInvalidValues {
		for i, v := range r.Values {
			for _, msg := range validation.IsValidLabelValue(v) {
				errs = append(errs, field.Invalid(fld.Child("values").Index(i), v, msg))
			}
		}
	}
	return errs
}

// validateNodeFieldSelectorRequirement: only metadata.name, In or NotIn
// one value.
func validateNodeFieldSelectorRequirement(r corev1.NodeSelectorRequirement, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	switch r.Operator {
	case corev1.NodeSelectorOpIn, corev1.NodeSelectorOpNotIn:
		if len(r.Values) != 1 {
			errs = append(errs, field.Required(fld.Child("values"), "must be only one value when `operator` is 'In' or 'NotIn' for node field selector"))
		}
	default:
		errs = append(errs, field.Invalid(fld.Child("operator"), r.Operator, "not a valid selector operator"))
	}
	if r.Key != "metadata.name" {
		return append(errs, field.Invalid(fld.Child("key"), r.Key, "not a valid field selector key"))
	}
	for i, v := range r.Values {
		for _, msg := range apivalidation.NameIsDNSSubdomain(v, false) {
			errs = append(errs, field.Invalid(fld.Child("values").Index(i), v, msg))
		}
	}
	return errs
}

func validatePodAffinityTerms(required []corev1.PodAffinityTerm, preferred []corev1.WeightedPodAffinityTerm, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, t := range required {
		errs = append(errs, validatePodAffinityTerm(t, fld.Child("requiredDuringSchedulingIgnoredDuringExecution").Index(i))...)
	}
	for i, t := range preferred {
		p := fld.Child("preferredDuringSchedulingIgnoredDuringExecution").Index(i)
		errs = append(errs, validateWeight(t.Weight, p.Child("weight"))...)
		errs = append(errs, validatePodAffinityTerm(t.PodAffinityTerm, p.Child("podAffinityTerm"))...)
	}
	return errs
}

func validatePodAffinityTerm(t corev1.PodAffinityTerm, fld *field.Path) field.ErrorList {
	opts := metav1validation.LabelSelectorValidationOptions{}
	errs := metav1validation.ValidateLabelSelector(t.LabelSelector, opts, fld.Child("labelSelector"))
	errs = append(errs, metav1validation.ValidateLabelSelector(t.NamespaceSelector, opts, fld.Child("namespaceSelector"))...)
	for _, ns := range t.Namespaces {
		for _, msg := range apivalidation.ValidateNamespaceName(ns, false) {
			errs = append(errs, field.Invalid(fld.Child("namespace"), ns, msg))
		}
	}
	errs = append(errs, validateMatchLabelKeys(fld, t.MatchLabelKeys, t.MismatchLabelKeys, t.LabelSelector)...)
	if t.TopologyKey == "" {
		errs = append(errs, field.Required(fld.Child("topologyKey"), "can not be empty"))
	}
	return append(errs, metav1validation.ValidateLabelName(t.TopologyKey, fld.Child("topologyKey"))...)
}

// validateMatchLabelKeys is upstream's
// ValidateMatchLabelKeysAndMismatchLabelKeys: label names, only with a
// selector, a key not both in matchLabelKeys and the selector (after the
// merge, as a second expression of it), nor in both lists.
func validateMatchLabelKeys(fld *field.Path, match, mismatch []string, sel *metav1.LabelSelector) field.ErrorList {
	errs := validateLabelKeys(fld.Child("matchLabelKeys"), match, sel)
	errs = append(errs, validateLabelKeys(fld.Child("mismatchLabelKeys"), mismatch, sel)...)
	if sel != nil {
		index := map[string]int{}
		for i, k := range match {
			index[k] = i
		}
		seen := map[string]bool{}
		for k := range sel.MatchLabels {
			seen[k] = true
		}
		for _, e := range sel.MatchExpressions {
			if i, ok := index[e.Key]; ok && seen[e.Key] {
				errs = append(errs, field.Invalid(fld.Index(i), e.Key, "exists in both matchLabelKeys and labelSelector"))
			}
			seen[e.Key] = true
		}
	}
	for i, k := range match {
		if slices.Contains(mismatch, k) {
			errs = append(errs, field.Invalid(fld.Child("matchLabelKeys").Index(i), k, "exists in both matchLabelKeys and mismatchLabelKeys"))
		}
	}
	return errs
}

func validateLabelKeys(fld *field.Path, keys []string, sel *metav1.LabelSelector) field.ErrorList {
	if len(keys) == 0 {
		return nil
	}
	if sel == nil {
		return field.ErrorList{field.Forbidden(fld, "must not be specified when labelSelector is not set")}
	}
	var errs field.ErrorList
	for i, k := range keys {
		errs = append(errs, metav1validation.ValidateLabelName(k, fld.Index(i))...)
	}
	return errs
}

var (
	scheduleActions       = []corev1.UnsatisfiableConstraintAction{corev1.DoNotSchedule, corev1.ScheduleAnyway}
	nodeInclusionPolicies = []corev1.NodeInclusionPolicy{corev1.NodeInclusionPolicyHonor, corev1.NodeInclusionPolicyIgnore}
)

// validateTopologySpread checks topology spread constraints as upstream's
// validateTopologySpreadConstraints (with the selector merge of 1.36).
func validateTopologySpread(cs []corev1.TopologySpreadConstraint, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, c := range cs {
		p := fld.Index(i)
		if c.MaxSkew <= 0 {
			errs = append(errs, field.Invalid(p.Child("maxSkew"), int64(c.MaxSkew), "must be greater than zero"))
		}
		if c.TopologyKey == "" {
			errs = append(errs, field.Required(p.Child("topologyKey"), "can not be empty"))
		}
		if !slices.Contains(scheduleActions, c.WhenUnsatisfiable) {
			errs = append(errs, field.NotSupported(p.Child("whenUnsatisfiable"), c.WhenUnsatisfiable, scheduleActions))
		}
		for _, rest := range cs[i+1:] {
			if c.TopologyKey == rest.TopologyKey && c.WhenUnsatisfiable == rest.WhenUnsatisfiable {
				errs = append(errs, field.Duplicate(p.Child("{topologyKey, whenUnsatisfiable}"), fmt.Sprintf("{%v, %v}", c.TopologyKey, c.WhenUnsatisfiable)))
				break
			}
		}
		if m := c.MinDomains; m != nil {
			if *m <= 0 {
				errs = append(errs, field.Invalid(p.Child("minDomains"), int64(*m), "must be greater than zero"))
			}
			if c.WhenUnsatisfiable != corev1.DoNotSchedule {
				errs = append(errs, field.Invalid(p.Child("minDomains"), m, fmt.Sprintf("can only use minDomains if whenUnsatisfiable=%s, not %s", corev1.DoNotSchedule, c.WhenUnsatisfiable)))
			}
		}
		for _, np := range []struct {
			name string
			v    *corev1.NodeInclusionPolicy
		}{{"nodeAffinityPolicy", c.NodeAffinityPolicy}, {"nodeTaintsPolicy", c.NodeTaintsPolicy}} {
			if np.v != nil && !slices.Contains(nodeInclusionPolicies, *np.v) {
				errs = append(errs, field.NotSupported(p.Child(np.name), np.v, nodeInclusionPolicies))
			}
		}
		errs = append(errs, validateMatchLabelKeys(p, c.MatchLabelKeys, nil, c.LabelSelector)...)
		errs = append(errs, metav1validation.ValidateLabelSelector(c.LabelSelector, metav1validation.LabelSelectorValidationOptions{}, p.Child("labelSelector"))...)
	}
	return errs
}

// validateTolerations checks tolerations as upstream's ValidateTolerations
// (the Lt and Gt operators are behind a gate that is off).
func validateTolerations(ts []corev1.Toleration, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, t := range ts {
		p := fld.Index(i)
		if t.Key != "" {
			errs = append(errs, metav1validation.ValidateLabelName(t.Key, p.Child("key"))...)
		}
		if t.Key == "" && t.Operator != corev1.TolerationOpExists {
			errs = append(errs, field.Invalid(p.Child("operator"), t.Operator,
				"operator must be Exists when `key` is empty, which means \"match all values and all keys\""))
		}
		if t.TolerationSeconds != nil && t.Effect != corev1.TaintEffectNoExecute {
			errs = append(errs, field.Invalid(p.Child("effect"), t.Effect, "effect must be 'NoExecute' when `tolerationSeconds` is set"))
		}
		switch t.Operator {
		case corev1.TolerationOpEqual, "":
			if msgs := validation.IsValidLabelValue(t.Value); len(msgs) != 0 {
				errs = append(errs, field.Invalid(p.Child("operator"), t.Value, strings.Join(msgs, ";")))
			}
		case corev1.TolerationOpExists:
			if t.Value != "" {
				errs = append(errs, field.Invalid(p.Child("operator"), t.Value, "value must be empty when `operator` is 'Exists'"))
			}
		case corev1.TolerationOpLt, corev1.TolerationOpGt:
			errs = append(errs, field.NotSupported(p.Child("operator"), t.Operator, []corev1.TolerationOperator{
				corev1.TolerationOpEqual, corev1.TolerationOpExists, corev1.TolerationOpLt, corev1.TolerationOpGt}))
		default:
			errs = append(errs, field.NotSupported(p.Child("operator"), t.Operator,
				[]corev1.TolerationOperator{corev1.TolerationOpEqual, corev1.TolerationOpExists}))
		}
		if t.Effect != "" {
			errs = append(errs, validateTaintEffect(t.Effect, p.Child("effect"))...)
		}
	}
	return errs
}

func validateTaintEffect(e corev1.TaintEffect, fld *field.Path) field.ErrorList {
	switch e {
	case corev1.TaintEffectNoSchedule, corev1.TaintEffectPreferNoSchedule, corev1.TaintEffectNoExecute:
		return nil
	}
	return field.ErrorList{field.NotSupported(fld, e,
		[]corev1.TaintEffect{corev1.TaintEffectNoSchedule, corev1.TaintEffectPreferNoSchedule, corev1.TaintEffectNoExecute})}
}

// ValidateTolerations checks tolerations as upstream's
// ValidateTolerations (RuntimeClass scheduling uses it).
func ValidateTolerations(ts []corev1.Toleration, fld *field.Path) field.ErrorList {
	return validateTolerations(ts, fld)
}
