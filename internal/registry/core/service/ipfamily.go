package service

import (
	"fmt"
	"net/netip"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

func policyOf(svc *corev1.Service) corev1.IPFamilyPolicy {
	if svc.Spec.IPFamilyPolicy == nil {
		return ""
	}
	return *svc.Spec.IPFamilyPolicy
}

func isHeadlessSelectorless(svc *corev1.Service) bool {
	return svc.Spec.ClusterIP == corev1.ClusterIPNone && len(svc.Spec.Selector) == 0
}

// initIPFamilyFields defaults ipFamilyPolicy and ipFamilies from the cluster's
// configured families and checks that what the Service asks for exists, as
// kube-apiserver does before allocating. old is nil on create.
func (al *Allocators) initIPFamilyFields(svc, old *corev1.Service) error {
	if svc.Spec.Type == corev1.ServiceTypeExternalName {
		return nil
	}
	if old != nil && policyOf(svc) == corev1.IPFamilyPolicyPreferDualStack &&
		policyOf(old) == corev1.IPFamilyPolicyPreferDualStack &&
		slices.Equal(svc.Spec.ClusterIPs, old.Spec.ClusterIPs) && slices.Equal(svc.Spec.IPFamilies, old.Spec.IPFamilies) {
		return nil // never auto-upgrade or downgrade a PreferDualStack Service
	}
	if svc.Spec.IPFamilyPolicy == nil {
		p := corev1.IPFamilyPolicySingleStack
		switch {
		case old != nil && old.Spec.IPFamilyPolicy != nil:
			p = *old.Spec.IPFamilyPolicy
		case isHeadlessSelectorless(svc):
			p = corev1.IPFamilyPolicyRequireDualStack
		}
		svc.Spec.IPFamilyPolicy = &p
	}
	policyPath := field.NewPath("spec", "ipFamilyPolicy")
	var errs field.ErrorList
	if old != nil {
		errs = append(errs, trimForSingleStack(svc, old)...)
	}
	if policyOf(svc) == corev1.IPFamilyPolicySingleStack {
		if len(svc.Spec.ClusterIPs) == 2 {
			errs = append(errs, field.Invalid(policyPath, svc.Spec.IPFamilyPolicy,
				"must be 'RequireDualStack' or 'PreferDualStack' when multiple cluster IPs are specified"))
		}
		if len(svc.Spec.IPFamilies) == 2 {
			errs = append(errs, field.Invalid(policyPath, svc.Spec.IPFamilyPolicy,
				"must be 'RequireDualStack' or 'PreferDualStack' when multiple IP families are specified"))
		}
	}
	for i, ip := range svc.Spec.ClusterIPs {
		addr, err := netip.ParseAddr(ip)
		if ip == corev1.ClusterIPNone || err != nil {
			break
		}
		if i < len(svc.Spec.IPFamilies) {
			continue
		}
		fam := familyOf(addr)
		if _, ok := al.IPs[fam]; !ok {
			errs = append(errs, field.Invalid(field.NewPath("spec", "clusterIPs").Index(i), svc.Spec.ClusterIPs,
				fmt.Sprintf("%s is not configured on this cluster", fam)))
			continue
		}
		svc.Spec.IPFamilies = append(svc.Spec.IPFamilies, fam)
	}
	if len(errs) > 0 {
		return invalid(svc, errs)
	}
	if isHeadlessSelectorless(svc) {
		if len(svc.Spec.IPFamilies) == 0 {
			svc.Spec.IPFamilies = []corev1.IPFamily{al.DefaultFamily}
		}
		if len(svc.Spec.IPFamilies) < 2 && policyOf(svc) != corev1.IPFamilyPolicySingleStack {
			svc.Spec.IPFamilies = append(svc.Spec.IPFamilies, otherFamily(svc.Spec.IPFamilies[0]))
		}
		return nil
	}
	if policyOf(svc) == corev1.IPFamilyPolicyRequireDualStack && len(al.IPs) < 2 {
		errs = append(errs, field.Invalid(policyPath, svc.Spec.IPFamilyPolicy,
			"this cluster is not configured for dual-stack services"))
	}
	for i, fam := range svc.Spec.IPFamilies {
		if _, ok := al.IPs[fam]; !ok {
			errs = append(errs, field.Invalid(field.NewPath("spec", "ipFamilies").Index(i), fam, "not configured on this cluster"))
		}
	}
	if len(errs) > 0 {
		return invalid(svc, errs)
	}
	if len(svc.Spec.IPFamilies) == 0 {
		svc.Spec.IPFamilies = []corev1.IPFamily{al.DefaultFamily}
	}
	if policyOf(svc) != corev1.IPFamilyPolicySingleStack && len(svc.Spec.IPFamilies) == 1 && len(al.IPs) == 2 {
		svc.Spec.IPFamilies = append(svc.Spec.IPFamilies, otherFamily(svc.Spec.IPFamilies[0]))
	}
	return nil
}

// trimForSingleStack: on update, SingleStack with unchanged dual values is
// the request to drop the secondary; any other policy may not drop it.
func trimForSingleStack(svc, old *corev1.Service) field.ErrorList {
	policyPath := field.NewPath("spec", "ipFamilyPolicy")
	if policyOf(svc) == corev1.IPFamilyPolicySingleStack {
		if slices.Equal(svc.Spec.ClusterIPs, old.Spec.ClusterIPs) && len(svc.Spec.ClusterIPs) > 1 {
			svc.Spec.ClusterIPs = svc.Spec.ClusterIPs[:1]
		}
		if slices.Equal(svc.Spec.IPFamilies, old.Spec.IPFamilies) && len(svc.Spec.IPFamilies) > 1 {
			svc.Spec.IPFamilies = svc.Spec.IPFamilies[:1]
		}
		return nil
	}
	var errs field.ErrorList
	if len(old.Spec.ClusterIPs) > len(svc.Spec.ClusterIPs) && len(svc.Spec.ClusterIPs) > 0 {
		errs = append(errs, field.Invalid(policyPath, svc.Spec.IPFamilyPolicy, "must be 'SingleStack' to release the secondary cluster IP"))
	}
	if len(old.Spec.IPFamilies) > len(svc.Spec.IPFamilies) && len(svc.Spec.IPFamilies) > 0 {
		errs = append(errs, field.Invalid(policyPath, svc.Spec.IPFamilyPolicy, "must be 'SingleStack' to release the secondary IP family"))
	}
	return errs
}

func otherFamily(f corev1.IPFamily) corev1.IPFamily {
	if f == corev1.IPv4Protocol {
		return corev1.IPv6Protocol
	}
	return corev1.IPv4Protocol
}
