package servicecidr

import (
	"context"
	"net/netip"
	"strings"

	networkingv1 "k8s.io/api/networking/v1"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/svcplane/svcplane/internal/registry/resource"
)

// Definition returns the servicecidrs resource.
func Definition() *resource.Definition {
	return &resource.Definition{
		GroupVersion: networkingv1.SchemeGroupVersion, Kind: "ServiceCIDR",
		Resource: "servicecidrs", Singular: "servicecidr",
		New:     func() runtime.Object { return &networkingv1.ServiceCIDR{} },
		NewList: func() runtime.Object { return &networkingv1.ServiceCIDRList{} },
		Status:  &resource.StatusDefinition{},
		Validate: func(ctx context.Context, obj runtime.Object) field.ErrorList {
			return validate(obj.(*networkingv1.ServiceCIDR))
		},
		ValidateUpdate: func(ctx context.Context, obj, old runtime.Object) field.ErrorList {
			return apivalidation.ValidateImmutableField(obj.(*networkingv1.ServiceCIDR).Spec.CIDRs,
				old.(*networkingv1.ServiceCIDR).Spec.CIDRs, field.NewPath("spec", "cidrs"))
		},
		Columns: []metav1.TableColumnDefinition{
			resource.Column("CIDRs", "string", 0, "cidrs defines the IP blocks in CIDR notation (e.g. \"192.168.0.0/24\" or \"2001:db8::/64\") from which to assign service cluster IPs."),
			resource.AgeColumn,
		},
		Row: func(obj runtime.Object) []interface{} {
			return []interface{}{strings.Join(obj.(*networkingv1.ServiceCIDR).Spec.CIDRs, ","), resource.AgeOf(obj)}
		},
	}
}

func validate(sc *networkingv1.ServiceCIDR) field.ErrorList {
	p := field.NewPath("spec", "cidrs")
	var errs field.ErrorList
	switch n := len(sc.Spec.CIDRs); {
	case n == 0:
		errs = append(errs, field.Required(p, "at least one CIDR required"))
	case n > 2:
		errs = append(errs, field.Invalid(p, sc.Spec.CIDRs, "may only hold up to 2 values"))
	}
	var families []bool
	for i, c := range sc.Spec.CIDRs {
		prefix, err := netip.ParsePrefix(c)
		if err != nil || prefix.Masked() != prefix {
			errs = append(errs, field.Invalid(p.Index(i), c, "must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)"))
			continue
		}
		families = append(families, prefix.Addr().Is4())
	}
	if len(families) == 2 && families[0] == families[1] {
		errs = append(errs, field.Invalid(p, sc.Spec.CIDRs, "may specify no more than one IP for each IP family, i.e 192.168.0.0/24 and 2001:db8::/64"))
	}
	return errs
}
