package servicecidr

import (
	"net/netip"

	networkingv1 "k8s.io/api/networking/v1"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// specValue renders a spec in errors as upstream's internal type does
// (Go field names).
type specValue struct{ CIDRs []string }

// validate checks a ServiceCIDR's spec as upstream's
// validateServiceCIDRSpec: one or two valid CIDRs, of two families.
func validate(sc *networkingv1.ServiceCIDR) field.ErrorList {
	p := field.NewPath("spec", "cidrs")
	cidrs := sc.Spec.CIDRs
	switch {
	case len(cidrs) == 0:
		return field.ErrorList{field.Required(p, "at least one CIDR required")}
	case len(cidrs) > 2:
		return field.ErrorList{field.Invalid(p, specValue{cidrs}, "may only hold up to 2 values")}
	}
	var errs field.ErrorList
	for i, c := range cidrs {
		errs = append(errs, validation.IsValidCIDR(p.Index(i), c)...)
	}
	if len(cidrs) == 2 {
		a, errA := netip.ParsePrefix(cidrs[0])
		b, errB := netip.ParsePrefix(cidrs[1])
		if errA == nil && errB == nil && a.Addr().Is4() == b.Addr().Is4() {
			errs = append(errs, field.Invalid(p, cidrs, "may specify no more than one IP for each IP family, i.e 192.168.0.0/24 and 2001:db8::/64"))
		}
	}
	return errs
}

// validateUpdate: the CIDRs may not change, except that a single-family
// ServiceCIDR may gain a CIDR of the other family (upstream's
// ValidateServiceCIDRUpdate).
func validateUpdate(sc, old *networkingv1.ServiceCIDR) field.ErrorList {
	p := field.NewPath("spec", "cidrs")
	cidrs, was := sc.Spec.CIDRs, old.Spec.CIDRs
	var errs field.ErrorList
	switch {
	case len(was) == len(cidrs):
		for i := range was {
			if cidrs[i] != was[i] {
				errs = append(errs, field.Invalid(p.Index(i), cidrs[i], apivalidation.FieldImmutableErrorMsg))
			}
		}
	case len(was) == 1 && len(cidrs) == 2:
		if cidrs[0] != was[0] {
			errs = append(errs, field.Invalid(p.Index(0), cidrs[0], apivalidation.FieldImmutableErrorMsg))
		}
		errs = append(errs, validate(sc)...)
	default:
		errs = append(errs, field.Invalid(p, cidrs, apivalidation.FieldImmutableErrorMsg))
	}
	return errs
}
