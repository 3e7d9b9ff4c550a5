package node

import (
	"net/netip"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/svcplane/svcplane/internal/registry/resource"

	"github.com/svcplane/svcplane/internal/registry/core/pod"
)

// taintValue renders a taint in errors as upstream's internal type does.
type taintValue struct {
	Key       string
	Value     string
	Effect    corev1.TaintEffect
	TimeAdded *metav1.Time
}

// validate checks a node as upstream's ValidateNode (its spec; status
// fields only where set).
func validate(n *corev1.Node) field.ErrorList {
	var errs field.ErrorList
	if len(n.Spec.Taints) > 0 {
		// Upstream reports taints under metadata.taints.
		errs = append(errs, validateTaints(n.Spec.Taints, field.NewPath("metadata", "taints"))...)
	}
	errs = append(errs, validateResources(n)...)
	cidrs := n.Spec.PodCIDRs
	p := field.NewPath("spec", "podCIDRs")
	for i, c := range cidrs {
		errs = append(errs, validation.IsValidCIDRForLegacyField(p.Index(i), c, resource.StrictIPCIDRValidation, nil)...)
	}
	if len(cidrs) > 1 && (len(cidrs) > 2 || !dualStack(cidrs[0], cidrs[1])) {
		errs = append(errs, field.Invalid(p, cidrs, "may specify no more than one CIDR for each IP family"))
	}
	return errs
}

func dualStack(a, b string) bool {
	pa, errA := netip.ParsePrefix(a)
	pb, errB := netip.ParsePrefix(b)
	return errA == nil && errB == nil && pa.Addr().Is4() != pb.Addr().Is4()
}

// validateUpdate is upstream's node update check: the node as on create,
// then validateTransition.
func validateUpdate(n, old *corev1.Node) field.ErrorList {
	return append(validate(n), validateTransition(n, old)...)
}

// validateTransition is upstream's ValidateNodeUpdate (all a /status
// update checks): resources, unique addresses, what may not change.
func validateTransition(n, old *corev1.Node) field.ErrorList {
	errs := validateResources(n)
	seen := map[corev1.NodeAddress]bool{}
	for i, a := range n.Status.Addresses {
		if seen[a] {
			errs = append(errs, field.Duplicate(field.NewPath("status", "addresses").Index(i), a))
		}
		seen[a] = true
	}
	podCIDRs := field.NewPath("spec", "podCIDRs")
	const cidrMsg = "node updates may not change podCIDR except from \"\" to valid"
	if len(old.Spec.PodCIDRs) > 0 {
		if len(old.Spec.PodCIDRs) != len(n.Spec.PodCIDRs) {
			errs = append(errs, field.Forbidden(podCIDRs, cidrMsg))
		} else {
			for i, c := range old.Spec.PodCIDRs {
				if c != n.Spec.PodCIDRs[i] {
					errs = append(errs, field.Forbidden(podCIDRs, cidrMsg))
				}
			}
		}
	}
	if old.Spec.ProviderID != "" && old.Spec.ProviderID != n.Spec.ProviderID {
		errs = append(errs, field.Forbidden(field.NewPath("spec", "providerID"), "node updates may not change providerID except from \"\" to valid"))
	}
	if len(n.Spec.Taints) > 0 {
		errs = append(errs, validateTaints(n.Spec.Taints, field.NewPath("metadata", "taints"))...)
	}
	if n.Spec.DoNotUseExternalID != old.Spec.DoNotUseExternalID {
		errs = append(errs, field.Forbidden(field.NewPath("spec", "externalID"), "may not be updated"))
	}
	return errs
}

func validateResources(n *corev1.Node) field.ErrorList {
	var errs field.ErrorList
	for name, q := range n.Status.Capacity {
		errs = append(errs, pod.ValidateResourceQuantityValue(name, q, field.NewPath("status", "capacity", string(name)))...)
	}
	for name, q := range n.Status.Allocatable {
		errs = append(errs, pod.ValidateResourceQuantityValue(name, q, field.NewPath("status", "allocatable", string(name)))...)
	}
	return errs
}

// validateTaints: valid keys, values and effects, unique by key and
// effect (upstream's validateNodeTaints).
func validateTaints(taints []corev1.Taint, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	seen := map[corev1.TaintEffect]map[string]bool{}
	for i, t := range taints {
		p := fld.Index(i)
		errs = append(errs, metav1validation.ValidateLabelName(t.Key, p.Child("key"))...)
		if msgs := validation.IsValidLabelValue(t.Value); len(msgs) != 0 {
			errs = append(errs, field.Invalid(p.Child("value"), t.Value, strings.Join(msgs, ";")))
		}
		errs = append(errs, ValidateTaintEffect(t.Effect, false, p.Child("effect"))...)
		if seen[t.Effect][t.Key] {
			dup := field.Duplicate(p, taintValue{t.Key, t.Value, t.Effect, t.TimeAdded})
			dup.Detail = "taints must be unique by key and effect pair"
			errs = append(errs, dup)
			continue
		}
		if seen[t.Effect] == nil {
			seen[t.Effect] = map[string]bool{}
		}
		seen[t.Effect][t.Key] = true
	}
	return errs
}

// ValidateTaintEffect: one of the three effects (or empty where allowed).
func ValidateTaintEffect(e corev1.TaintEffect, allowEmpty bool, fld *field.Path) field.ErrorList {
	if !allowEmpty && e == "" {
		return field.ErrorList{field.Required(fld, "")}
	}
	switch e {
	case corev1.TaintEffectNoSchedule, corev1.TaintEffectPreferNoSchedule, corev1.TaintEffectNoExecute:
		return nil
	}
	return field.ErrorList{field.NotSupported(fld, e,
		[]corev1.TaintEffect{corev1.TaintEffectNoSchedule, corev1.TaintEffectPreferNoSchedule, corev1.TaintEffectNoExecute})}
}

// Default normalises podCIDR/podCIDRs, fills allocatable from capacity and
// rounds both up to milli units, as upstream's v1 conversion (podCIDR wins
// when the two differ; podCIDR is the first of podCIDRs),
// SetDefaults_NodeStatus and SetDefaults_ResourceList.
func Default(n *corev1.Node) {
	s := &n.Spec
	if s.PodCIDR != "" && (len(s.PodCIDRs) == 0 || s.PodCIDRs[0] != s.PodCIDR) {
		s.PodCIDRs = []string{s.PodCIDR}
	}
	if len(s.PodCIDRs) > 0 {
		s.PodCIDR = s.PodCIDRs[0]
	}
	if n.Status.Allocatable == nil && n.Status.Capacity != nil {
		n.Status.Allocatable = n.Status.Capacity.DeepCopy()
	}
	pod.RoundUpResources(n.Status.Capacity)
	pod.RoundUpResources(n.Status.Allocatable)
}
