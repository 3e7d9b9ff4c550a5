package pod

import (
	"strings"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// What upstream's pod strategy changes in a new pod before validating it
// (besides the status and the scheduling-gated condition): label keys
// merged into the affinity and spread selectors, deprecated AppArmor
// annotations copied to the fields.

// mergeMatchLabelKeys adds the pod's values of matchLabelKeys (In) and
// mismatchLabelKeys (NotIn) to the selectors of its pod (anti-)affinity
// terms and topology spread constraints (MatchLabelKeysInPodAffinity and
// MatchLabelKeysInPodTopologySpreadSelectorMerge, on in 1.36).
func mergeMatchLabelKeys(p *corev1.Pod) {
	if a := p.Spec.Affinity; a != nil {
		for _, terms := range [][]corev1.PodAffinityTerm{termsOf(a.PodAffinity), termsOf(a.PodAntiAffinity)} {
			for i := range terms {
				mergeIntoTerm(&terms[i], p.Labels)
			}
		}
		for _, weighted := range [][]corev1.WeightedPodAffinityTerm{weightedOf(a.PodAffinity), weightedOf(a.PodAntiAffinity)} {
			for i := range weighted {
				mergeIntoTerm(&weighted[i].PodAffinityTerm, p.Labels)
			}
		}
	}
	for i := range p.Spec.TopologySpreadConstraints {
		c := &p.Spec.TopologySpreadConstraints[i]
		if len(c.MatchLabelKeys) > 0 && c.LabelSelector != nil {
			addLabelKeys(c.LabelSelector, c.MatchLabelKeys, metav1.LabelSelectorOpIn, p.Labels)
		}
	}
}

func termsOf(a interface{}) []corev1.PodAffinityTerm {
	switch a := a.(type) {
	case *corev1.PodAffinity:
		if a != nil {
			return a.RequiredDuringSchedulingIgnoredDuringExecution
		}
	case *corev1.PodAntiAffinity:
		if a != nil {
			return a.RequiredDuringSchedulingIgnoredDuringExecution
		}
	}
	return nil
}

func weightedOf(a interface{}) []corev1.WeightedPodAffinityTerm {
	switch a := a.(type) {
	case *corev1.PodAffinity:
		if a != nil {
			return a.PreferredDuringSchedulingIgnoredDuringExecution
		}
	case *corev1.PodAntiAffinity:
		if a != nil {
			return a.PreferredDuringSchedulingIgnoredDuringExecution
		}
	}
	return nil
}

func mergeIntoTerm(t *corev1.PodAffinityTerm, labels map[string]string) {
	if t.LabelSelector == nil || (len(t.MatchLabelKeys) == 0 && len(t.MismatchLabelKeys) == 0) {
		return
	}
	addLabelKeys(t.LabelSelector, t.MatchLabelKeys, metav1.LabelSelectorOpIn, labels)
	addLabelKeys(t.LabelSelector, t.MismatchLabelKeys, metav1.LabelSelectorOpNotIn, labels)
}

func addLabelKeys(s *metav1.LabelSelector, keys []string, op metav1.LabelSelectorOperator, labels map[string]string) {
	for _, k := range keys {
		if v, ok := labels[k]; ok {
			s.MatchExpressions = append(s.MatchExpressions, metav1.LabelSelectorRequirement{Key: k, Operator: op, Values: []string{v}})
		}
	}
}

// copyAppArmorAnnotations gives a container with a deprecated AppArmor
// annotation and no profile field the profile the annotation names, unless
// it is the pod's own or not valid (upstream's applyAppArmorVersionSkew).
func copyAppArmorAnnotations(p *corev1.Pod) {
	if p.Spec.OS != nil && p.Spec.OS.Name == corev1.Windows {
		return
	}
	var podProfile *corev1.AppArmorProfile
	if p.Spec.SecurityContext != nil {
		podProfile = p.Spec.SecurityContext.AppArmorProfile
	}
	visitContainers(&p.Spec, field.NewPath("spec"), func(c *corev1.Container, _ *field.Path) {
		a, ok := p.Annotations[corev1.DeprecatedAppArmorBetaContainerAnnotationKeyPrefix+c.Name]
		if !ok || (c.SecurityContext != nil && c.SecurityContext.AppArmorProfile != nil) {
			return
		}
		profile := appArmorProfileOf(a)
		if profile == nil || len(validateAppArmorProfile(profile, &field.Path{})) > 0 || apiequality.Semantic.DeepEqual(profile, podProfile) {
			return
		}
		if c.SecurityContext == nil {
			c.SecurityContext = &corev1.SecurityContext{}
		}
		c.SecurityContext.AppArmorProfile = profile
	})
}

// appArmorProfileOf is the profile a deprecated annotation value names.
func appArmorProfileOf(a string) *corev1.AppArmorProfile {
	switch {
	case a == corev1.DeprecatedAppArmorBetaProfileNameUnconfined:
		return &corev1.AppArmorProfile{Type: corev1.AppArmorProfileTypeUnconfined}
	case a == corev1.DeprecatedAppArmorBetaProfileRuntimeDefault:
		return &corev1.AppArmorProfile{Type: corev1.AppArmorProfileTypeRuntimeDefault}
	case strings.HasPrefix(a, corev1.DeprecatedAppArmorBetaProfileNamePrefix):
		if name := strings.TrimPrefix(a, corev1.DeprecatedAppArmorBetaProfileNamePrefix); name != "" {
			return &corev1.AppArmorProfile{Type: corev1.AppArmorProfileTypeLocalhost, LocalhostProfile: &name}
		}
	}
	return nil
}
