package service

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	netutils "k8s.io/utils/net"
)

var (
	supportedIPFamilies       = []corev1.IPFamily{corev1.IPv4Protocol, corev1.IPv6Protocol}
	supportedIPFamilyPolicies = []corev1.IPFamilyPolicy{corev1.IPFamilyPolicyPreferDualStack,
		corev1.IPFamilyPolicyRequireDualStack, corev1.IPFamilyPolicySingleStack}
)

// ValidateClusterIPsRelatedFields is upstream's
// ValidateServiceClusterIPsRelatedFields: clusterIP and clusterIPs agree,
// clusterIPs are valid IPs (or a lone "None"), at most one per family and at
// most two, ipFamilies and ipFamilyPolicy hold supported values, and each
// clusterIP matches its ipFamilies entry. IPs already in old are not
// re-judged. ExternalName Services are checked in Validate instead. The
// allocator may call this after filling in families and IPs.
func ValidateClusterIPsRelatedFields(svc, old *corev1.Service) field.ErrorList {
	if svc.Spec.Type == corev1.ServiceTypeExternalName {
		return nil
	}
	spec := &svc.Spec
	ipsPath := field.NewPath("spec", "clusterIPs")
	var errs field.ErrorList
	switch {
	case spec.ClusterIP != "" && len(spec.ClusterIPs) == 0:
		errs = append(errs, field.Required(ipsPath, ""))
	case spec.ClusterIP != "" && spec.ClusterIPs[0] != spec.ClusterIP:
		errs = append(errs, field.Invalid(ipsPath, spec.ClusterIPs, "first value must match `clusterIP`"))
	case spec.ClusterIP == "" && len(spec.ClusterIPs) != 0:
		errs = append(errs, field.Invalid(ipsPath, spec.ClusterIPs, "must be empty when `clusterIP` is not specified"))
	}
	errs = append(errs, validateIPFamilyValues(spec)...)
	ipErrs, invalid := validateClusterIPValues(spec.ClusterIPs, oldSpec(old).ClusterIPs, ipsPath)
	errs = append(errs, ipErrs...)
	if invalid {
		// Bad IPs would skew the family checks below.
		return errs
	}
	if len(spec.ClusterIPs) > 1 {
		if dual, err := netutils.IsDualStackIPStrings(spec.ClusterIPs); err != nil {
			errs = append(errs, field.InternalError(ipsPath, fmt.Errorf("failed to check for dual stack with error:%v", err)))
		} else if !dual {
			errs = append(errs, field.Invalid(ipsPath, spec.ClusterIPs, "may specify no more than one IP for each IP family"))
		}
	}
	if !isHeadless(svc) {
		errs = append(errs, validateIPsMatchFamilies(spec, ipsPath)...)
	}
	return errs
}

// validateIPFamilyValues: ipFamilies are IPv4 or IPv6 without repeats;
// ipFamilyPolicy, when set, is one of the three policies.
func validateIPFamilyValues(spec *corev1.ServiceSpec) field.ErrorList {
	var errs field.ErrorList
	famPath := field.NewPath("spec", "ipFamilies")
	seen := map[corev1.IPFamily]bool{}
	for i, f := range spec.IPFamilies {
		if !contains(supportedIPFamilies, f) {
			errs = append(errs, field.NotSupported(famPath.Index(i), f, supportedIPFamilies))
		}
		if seen[f] {
			errs = append(errs, field.Duplicate(famPath.Index(i), f))
		}
		seen[f] = true
	}
	if p := spec.IPFamilyPolicy; p != nil && !contains(supportedIPFamilyPolicies, *p) {
		errs = append(errs, field.NotSupported(field.NewPath("spec", "ipFamilyPolicy"), *p, supportedIPFamilyPolicies))
	}
	return errs
}

// validateClusterIPValues checks each clusterIP; invalid reports whether a
// bad value was found (a misplaced "None" counts).
func validateClusterIPValues(ips, oldIPs []string, ipsPath *field.Path) (errs field.ErrorList, invalid bool) {
	for i, ip := range ips {
		if i == 0 && ip == corev1.ClusterIPNone {
			if len(ips) > 1 {
				invalid = true
				errs = append(errs, field.Invalid(ipsPath, ips, "'None' must be the first and only value"))
			}
			continue
		}
		ipErrs := validation.IsValidIPForLegacyField(ipsPath.Index(i), ip, strictIPs, oldIPs)
		invalid = invalid || len(ipErrs) != 0
		errs = append(errs, ipErrs...)
	}
	if len(ips) > 2 {
		errs = append(errs, field.Invalid(ipsPath, ips, "may only hold up to 2 values"))
	}
	return errs, invalid
}

// validateIPsMatchFamilies: clusterIPs[i] is of family ipFamilies[i].
func validateIPsMatchFamilies(spec *corev1.ServiceSpec, ipsPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, ip := range spec.ClusterIPs {
		if i >= len(spec.IPFamilies) {
			break
		}
		v6 := netutils.IsIPv6String(ip)
		switch {
		case spec.IPFamilies[i] == corev1.IPv4Protocol && v6:
			errs = append(errs, field.Invalid(ipsPath.Index(i), ip,
				fmt.Sprintf("expected an IPv4 value as indicated by `ipFamilies[%v]`", i)))
		case spec.IPFamilies[i] == corev1.IPv6Protocol && !v6:
			errs = append(errs, field.Invalid(ipsPath.Index(i), ip,
				fmt.Sprintf("expected an IPv6 value as indicated by `ipFamilies[%v]`", i)))
		}
	}
	return errs
}

// validateUpgradeDowngradeClusterIPs: the primary clusterIP never changes
// (except to, from or on ExternalName, or between headless Services); a
// secondary may be added, or released together with ipFamilyPolicy
// SingleStack.
func validateUpgradeDowngradeClusterIPs(old, svc *corev1.Service) field.ErrorList {
	if svc.Spec.Type == corev1.ServiceTypeExternalName || old.Spec.Type == corev1.ServiceTypeExternalName {
		return nil
	}
	if isHeadless(old) && isHeadless(svc) {
		return nil
	}
	var errs field.ErrorList
	oldIPs, newIPs := old.Spec.ClusterIPs, svc.Spec.ClusterIPs
	ipsPath := field.NewPath("spec", "clusterIPs")
	switch {
	case len(oldIPs) == len(newIPs):
		for i := range oldIPs {
			if oldIPs[i] != newIPs[i] {
				errs = append(errs, field.Invalid(ipsPath.Index(i), newIPs, "may not change once set"))
			}
		}
	case len(oldIPs) > len(newIPs):
		if len(newIPs) == 0 {
			errs = append(errs, field.Invalid(ipsPath.Index(0), newIPs, "primary clusterIP can not be unset"))
		} else if newIPs[0] != oldIPs[0] {
			errs = append(errs, field.Invalid(ipsPath.Index(0), newIPs, "may not change once set"))
		}
		if len(newIPs) == 1 && !isSingleStack(svc) {
			errs = append(errs, field.Invalid(field.NewPath("spec", "ipFamilyPolicy"), svc.Spec.IPFamilyPolicy,
				"must be set to 'SingleStack' when releasing the secondary clusterIP"))
		}
	default: // an IP was added
		if len(oldIPs) > 0 && newIPs[0] != oldIPs[0] {
			errs = append(errs, field.Invalid(ipsPath.Index(0), newIPs, "may not change once set"))
		}
	}
	return errs
}

// validateUpgradeDowngradeIPFamilies: the same rules for ipFamilies; a
// Service turning headless, or staying headless, may change its families.
// The values reported are upstream's (some name clusterIPs).
func validateUpgradeDowngradeIPFamilies(old, svc *corev1.Service) field.ErrorList {
	if svc.Spec.Type == corev1.ServiceTypeExternalName || old.Spec.Type == corev1.ServiceTypeExternalName {
		return nil
	}
	if isHeadless(old) || isHeadless(svc) {
		return nil
	}
	var errs field.ErrorList
	oldF, newF := old.Spec.IPFamilies, svc.Spec.IPFamilies
	famPath := field.NewPath("spec", "ipFamilies").Index(0)
	switch {
	case len(oldF) == len(newF):
		for i := range oldF {
			if oldF[i] != newF[i] {
				errs = append(errs, field.Invalid(famPath, newF, "may not change once set"))
			}
		}
	case len(oldF) > len(newF):
		if len(svc.Spec.ClusterIPs) == 0 {
			errs = append(errs, field.Invalid(famPath, newF, "primary ipFamily can not be unset"))
		}
		if len(newF) > 0 && newF[0] != oldF[0] {
			errs = append(errs, field.Invalid(famPath, svc.Spec.ClusterIPs, "may not change once set"))
		}
		if len(newF) == 1 && !isSingleStack(svc) {
			errs = append(errs, field.Invalid(field.NewPath("spec", "ipFamilyPolicy"), svc.Spec.IPFamilyPolicy,
				"must be set to 'SingleStack' when releasing the secondary ipFamily"))
		}
	default: // a family was added
		if len(oldF) > 0 && len(newF) > 0 && newF[0] != oldF[0] {
			errs = append(errs, field.Invalid(famPath, svc.Spec.ClusterIPs, "may not change once set"))
		}
	}
	return errs
}

func isSingleStack(svc *corev1.Service) bool {
	return svc.Spec.IPFamilyPolicy != nil && *svc.Spec.IPFamilyPolicy == corev1.IPFamilyPolicySingleStack
}
