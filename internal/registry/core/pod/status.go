package pod

import (
	"net/netip"

	corev1 "k8s.io/api/core/v1"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/svcplane/svcplane/internal/registry/resource"
)

// systemConditions are the pod condition types that need not be qualified
// names.
var systemConditions = map[corev1.PodConditionType]bool{corev1.PodScheduled: true, corev1.PodReady: true, corev1.PodInitialized: true}

// validateStatusUpdate checks a /status update as upstream's
// ValidatePodStatusUpdate, but for the container state transitions and the
// resource claim statuses: conditions, nominated node, observed
// generation, the QoS class, pod and host IPs.
func validateStatusUpdate(p, old *corev1.Pod) field.ErrorList {
	fld := field.NewPath("status")
	s := &p.Status
	var errs field.ErrorList
	for i, c := range s.Conditions {
		if c.ObservedGeneration < 0 {
			errs = append(errs, field.Invalid(fld.Child("conditions").Index(i).Child("observedGeneration"), c.ObservedGeneration, "must be a non-negative integer"))
		}
		if !systemConditions[c.Type] {
			errs = append(errs, validateQualifiedName(string(c.Type), fld.Child("conditions").Index(i).Child("Type"))...)
		}
	}
	if p.Spec.NodeName != old.Spec.NodeName {
		errs = append(errs, field.Forbidden(fld.Child("nodeName"), "may not be changed directly"))
	}
	if n := s.NominatedNodeName; n != old.Status.NominatedNodeName && n != "" {
		for _, msg := range apivalidation.NameIsDNSSubdomain(n, false) {
			errs = append(errs, field.Invalid(fld.Child("nominatedNodeName"), n, msg))
		}
		if old.Spec.NodeName != "" {
			errs = append(errs, field.Forbidden(fld.Child("nominatedNodeName"), "may not be set on pods that are already bound to a node"))
		}
	}
	if s.ObservedGeneration < 0 {
		errs = append(errs, field.Invalid(fld.Child("observedGeneration"), s.ObservedGeneration, "must be a non-negative integer"))
	}
	errs = append(errs, apivalidation.ValidateImmutableField(s.QOSClass, old.Status.QOSClass, fld.Child("qosClass"))...)
	podIPs := func(l []corev1.PodIP) []string {
		out := make([]string, len(l))
		for i, x := range l {
			out[i] = x.IP
		}
		return out
	}
	hostIPs := func(l []corev1.HostIP) []string {
		out := make([]string, len(l))
		for i, x := range l {
			out[i] = x.IP
		}
		return out
	}
	errs = append(errs, validateIPList(podIPs(s.PodIPs), podIPs(old.Status.PodIPs), resource.AsInternal(s.PodIPs), fld.Child("podIPs"))...)
	if len(s.HostIPs) > 0 {
		if s.HostIP != s.HostIPs[0].IP {
			errs = append(errs, field.Invalid(fld.Child("hostIPs").Index(0).Child("ip"), s.HostIPs[0].IP, "must be equal to `hostIP`"))
		}
		errs = append(errs, validateIPList(hostIPs(s.HostIPs), hostIPs(old.Status.HostIPs), resource.AsInternal(s.HostIPs), fld.Child("hostIPs"))...)
	}
	return errs
}

// validateIPList: valid IPs (the old ones kept as they were), at most one
// of each family.
func validateIPList(ips, old []string, rendered interface{}, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, ip := range ips {
		errs = append(errs, validation.IsValidIPForLegacyField(fld.Index(i), ip, resource.StrictIPCIDRValidation, old)...)
	}
	if len(ips) > 1 {
		a, errA := netip.ParseAddr(ips[0])
		b, errB := netip.ParseAddr(ips[1])
		dual := errA == nil && errB == nil && a.Unmap().Is4() != b.Unmap().Is4()
		if !dual || len(ips) > 2 {
			errs = append(errs, field.Invalid(fld, rendered, "may specify no more than one IP for each IP family"))
		}
	}
	return errs
}
