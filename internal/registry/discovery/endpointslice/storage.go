package endpointslice

import (
	"context"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/svcplane/svcplane/internal/registry/resource"
)

// Definition returns the endpointslices resource.
func Definition() *resource.Definition {
	return &resource.Definition{
		GroupVersion: discoveryv1.SchemeGroupVersion, Kind: "EndpointSlice",
		Resource: "endpointslices", Singular: "endpointslice", Namespaced: true,
		UpdateMeta: resource.UpdateMetaNew,
		PrepareForCreate: func(ctx context.Context, obj runtime.Object) {
			s := obj.(*discoveryv1.EndpointSlice)
			s.Generation = 1
			dropTopology(nil, s)
		},
		PrepareForUpdate: func(ctx context.Context, obj, old runtime.Object) {
			s, o := obj.(*discoveryv1.EndpointSlice), old.(*discoveryv1.EndpointSlice)
			bumpGeneration(s, o)
			dropTopology(o, s)
		},
		New:     func() runtime.Object { return &discoveryv1.EndpointSlice{} },
		NewList: func() runtime.Object { return &discoveryv1.EndpointSliceList{} },
		Default: func(obj runtime.Object) {
			for i := range obj.(*discoveryv1.EndpointSlice).Ports {
				p := &obj.(*discoveryv1.EndpointSlice).Ports[i]
				if p.Protocol == nil {
					tcp := corev1.ProtocolTCP
					p.Protocol = &tcp
				}
				if p.Name == nil {
					empty := ""
					p.Name = &empty
				}
			}
		},
		Validate: func(ctx context.Context, obj runtime.Object) field.ErrorList {
			return validate(obj.(*discoveryv1.EndpointSlice))
		},
		ValidateUpdate: func(ctx context.Context, obj, old runtime.Object) field.ErrorList {
			s, o := obj.(*discoveryv1.EndpointSlice), old.(*discoveryv1.EndpointSlice)
			errs := validate(s)
			return append(errs, apivalidation.ValidateImmutableField(s.AddressType, o.AddressType, field.NewPath("addressType"))...)
		},
		Columns: []metav1.TableColumnDefinition{
			resource.Column("AddressType", "string", 0, "The type of addresses held by this EndpointSlice."),
			resource.Column("Ports", "string", 0, "The ports exposed by this EndpointSlice."),
			resource.Column("Endpoints", "string", 0, "The endpoints in this EndpointSlice."),
			resource.AgeColumn,
		},
		Row: func(obj runtime.Object) []interface{} {
			s := obj.(*discoveryv1.EndpointSlice)
			return []interface{}{string(s.AddressType), ports(s.Ports), endpoints(s.Endpoints), resource.AgeOf(obj)}
		},
	}
}

func ports(ps []discoveryv1.EndpointPort) string {
	if len(ps) == 0 {
		return "<unset>"
	}
	var out []string
	for _, p := range ps {
		if p.Port != nil {
			out = append(out, fmt.Sprint(*p.Port))
		}
	}
	return strings.Join(out, ",")
}

func endpoints(eps []discoveryv1.Endpoint) string {
	var list []string
	total := 0
	for _, ep := range eps {
		for _, a := range ep.Addresses {
			total++
			if len(list) < 3 {
				list = append(list, a)
			}
		}
	}
	if total == 0 {
		return "<unset>"
	}
	out := strings.Join(list, ",")
	if total > len(list) {
		out += fmt.Sprintf(" + %d more...", total-len(list))
	}
	return out
}
