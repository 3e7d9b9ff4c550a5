package endpoints

import (
	"context"
	"fmt"
	"net/netip"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/svcplane/svcplane/internal/registry/core/pod"
	"github.com/svcplane/svcplane/internal/registry/resource"
)

// Definition returns the endpoints resource.
func Definition() *resource.Definition {
	return &resource.Definition{
		GroupVersion: corev1.SchemeGroupVersion, Kind: "Endpoints",
		Resource: "endpoints", Singular: "endpoints", Namespaced: true,
		ShortNames:          []string{"ep"},
		EtcdPrefix:          "services/endpoints",
		NameValidation:      apivalidation.NameIsDNSSubdomain,
		AllowCreateOnUpdate: true,
		New:                 func() runtime.Object { return &corev1.Endpoints{} },
		NewList:             func() runtime.Object { return &corev1.EndpointsList{} },
		Default: func(obj runtime.Object) {
			for i := range obj.(*corev1.Endpoints).Subsets {
				s := &obj.(*corev1.Endpoints).Subsets[i]
				for j := range s.Ports {
					if s.Ports[j].Protocol == "" {
						s.Ports[j].Protocol = corev1.ProtocolTCP
					}
				}
			}
		},
		Validate: func(ctx context.Context, obj runtime.Object) field.ErrorList {
			return Validate(obj.(*corev1.Endpoints))
		},
		Columns: []metav1.TableColumnDefinition{
			resource.Column("Endpoints", "string", 0, "Endpoints is the list of endpoints in the service."),
			resource.AgeColumn,
		},
		Row: func(obj runtime.Object) []interface{} {
			return []interface{}{formatEndpoints(obj.(*corev1.Endpoints)), resource.AgeOf(obj)}
		},
	}
}

// Validate checks subsets: addresses are IPs that are not loopback,
// link-local or multicast, ports are valid.
func Validate(ep *corev1.Endpoints) field.ErrorList {
	var errs field.ErrorList
	for i, s := range ep.Subsets {
		sp := field.NewPath("subsets").Index(i)
		for j, a := range s.Addresses {
			errs = append(errs, validateAddress(a, sp.Child("addresses").Index(j))...)
		}
		for j, a := range s.NotReadyAddresses {
			errs = append(errs, validateAddress(a, sp.Child("notReadyAddresses").Index(j))...)
		}
		for j, p := range s.Ports {
			pp := sp.Child("ports").Index(j)
			if len(s.Ports) > 1 || p.Name != "" {
				for _, msg := range validation.IsDNS1123Label(p.Name) {
					errs = append(errs, field.Invalid(pp.Child("name"), p.Name, msg))
				}
			}
			for _, msg := range validation.IsValidPortNum(int(p.Port)) {
				errs = append(errs, field.Invalid(pp.Child("port"), p.Port, msg))
			}
			errs = append(errs, pod.ValidateProtocol(p.Protocol, pp.Child("protocol"))...)
		}
	}
	return errs
}

func validateAddress(a corev1.EndpointAddress, fld *field.Path) field.ErrorList {
	ip, err := netip.ParseAddr(a.IP)
	if err != nil {
		return field.ErrorList{field.Invalid(fld.Child("ip"), a.IP, "must be a valid IP address")}
	}
	switch {
	case ip.IsUnspecified():
		return field.ErrorList{field.Invalid(fld.Child("ip"), a.IP, "may not be unspecified (0.0.0.0)")}
	case ip.IsLoopback():
		return field.ErrorList{field.Invalid(fld.Child("ip"), a.IP, "may not be in the loopback range (127.0.0.0/8, ::1/128)")}
	case ip.IsLinkLocalUnicast():
		return field.ErrorList{field.Invalid(fld.Child("ip"), a.IP, "may not be in the link-local range (169.254.0.0/16, fe80::/10)")}
	case ip.IsLinkLocalMulticast():
		return field.ErrorList{field.Invalid(fld.Child("ip"), a.IP, "may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)")}
	}
	return nil
}

// formatEndpoints prints up to three ip:port pairs and "+ N more...".
func formatEndpoints(ep *corev1.Endpoints) string {
	var list []string
	total := 0
	for _, s := range ep.Subsets {
		for _, a := range s.Addresses {
			if len(s.Ports) == 0 {
				total++
				if len(list) < 3 {
					list = append(list, a.IP)
				}
				continue
			}
			for _, p := range s.Ports {
				total++
				if len(list) < 3 {
					list = append(list, fmt.Sprintf("%s:%d", a.IP, p.Port))
				}
			}
		}
	}
	out := strings.Join(list, ",")
	if total > len(list) {
		out += fmt.Sprintf(" + %d more...", total-len(list))
	}
	if out == "" {
		return "<none>"
	}
	return out
}
