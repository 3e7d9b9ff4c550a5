package endpointslice

import (
	"context"
	"fmt"
	"net/netip"
	"strings"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/svcplane/svcplane/internal/registry/core/pod"
	"github.com/svcplane/svcplane/internal/registry/resource"
)

const (
	maxEndpoints = 1000
	maxPorts     = 100
	maxAddresses = 100
)

// Definition returns the endpointslices resource.
func Definition() *resource.Definition {
	return &resource.Definition{
		GroupVersion: discoveryv1.SchemeGroupVersion, Kind: "EndpointSlice",
		Resource: "endpointslices", Singular: "endpointslice", Namespaced: true,
		Generation: true,
		New:        func() runtime.Object { return &discoveryv1.EndpointSlice{} },
		NewList:    func() runtime.Object { return &discoveryv1.EndpointSliceList{} },
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
			if s.AddressType != o.AddressType {
				errs = append(errs, field.Invalid(field.NewPath("addressType"), s.AddressType, "field is immutable"))
			}
			return errs
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

var supportedAddressTypes = []discoveryv1.AddressType{discoveryv1.AddressTypeIPv4, discoveryv1.AddressTypeIPv6, discoveryv1.AddressTypeFQDN}

func validate(s *discoveryv1.EndpointSlice) field.ErrorList {
	var errs field.ErrorList
	switch s.AddressType {
	case discoveryv1.AddressTypeIPv4, discoveryv1.AddressTypeIPv6, discoveryv1.AddressTypeFQDN:
	case "":
		errs = append(errs, field.Required(field.NewPath("addressType"), ""))
	default:
		errs = append(errs, field.NotSupported(field.NewPath("addressType"), s.AddressType, supportedAddressTypes))
	}
	if len(s.Endpoints) > maxEndpoints {
		errs = append(errs, field.TooMany(field.NewPath("endpoints"), len(s.Endpoints), maxEndpoints))
	}
	for i, ep := range s.Endpoints {
		p := field.NewPath("endpoints").Index(i)
		if len(ep.Addresses) == 0 {
			errs = append(errs, field.Required(p.Child("addresses"), "must contain at least 1 address"))
		} else if len(ep.Addresses) > maxAddresses {
			errs = append(errs, field.TooMany(p.Child("addresses"), len(ep.Addresses), maxAddresses))
		}
		for j, a := range ep.Addresses {
			errs = append(errs, validateAddress(s.AddressType, a, p.Child("addresses").Index(j))...)
		}
		if ep.NodeName != nil {
			for _, msg := range validation.IsDNS1123Subdomain(*ep.NodeName) {
				errs = append(errs, field.Invalid(p.Child("nodeName"), *ep.NodeName, msg))
			}
		}
	}
	if len(s.Ports) > maxPorts {
		errs = append(errs, field.TooMany(field.NewPath("ports"), len(s.Ports), maxPorts))
	}
	names := map[string]bool{}
	for i, port := range s.Ports {
		p := field.NewPath("ports").Index(i)
		if port.Name != nil && *port.Name != "" {
			for _, msg := range validation.IsDNS1123Label(*port.Name) {
				errs = append(errs, field.Invalid(p.Child("name"), *port.Name, msg))
			}
		}
		if port.Name != nil {
			if names[*port.Name] {
				errs = append(errs, field.Duplicate(p.Child("name"), *port.Name))
			}
			names[*port.Name] = true
		}
		if port.Protocol != nil {
			errs = append(errs, pod.ValidateProtocol(*port.Protocol, p.Child("protocol"))...)
		}
		if port.Port != nil {
			for _, msg := range validation.IsInRange(int(*port.Port), 0, 65535) {
				errs = append(errs, field.Invalid(p.Child("port"), *port.Port, msg))
			}
		}
	}
	return errs
}

func validateAddress(t discoveryv1.AddressType, a string, fld *field.Path) field.ErrorList {
	switch t {
	case discoveryv1.AddressTypeIPv4, discoveryv1.AddressTypeIPv6:
		ip, err := netip.ParseAddr(a)
		if err != nil || ip.Zone() != "" {
			return field.ErrorList{field.Invalid(fld, a, "must be a valid IP address")}
		}
		if ip.Is4() != (t == discoveryv1.AddressTypeIPv4) {
			return field.ErrorList{field.Invalid(fld, a, "must be an "+string(t)+" address")}
		}
	case discoveryv1.AddressTypeFQDN:
		return validation.IsFullyQualifiedDomainName(fld, a)
	}
	return nil
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
