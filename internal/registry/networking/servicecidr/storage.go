package servicecidr

import (
	"context"
	"strings"

	networkingv1 "k8s.io/api/networking/v1"
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
		// Upstream's ValidateServiceCIDRUpdate: the metadata's transition
		// and the CIDRs' (not the new object as on create).
		UpdateMeta: resource.UpdateMetaTransition,
		ValidateUpdate: func(ctx context.Context, obj, old runtime.Object) field.ErrorList {
			return validateUpdate(obj.(*networkingv1.ServiceCIDR), old.(*networkingv1.ServiceCIDR))
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
