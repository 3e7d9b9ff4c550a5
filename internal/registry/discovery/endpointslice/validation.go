package endpointslice

import (
	"fmt"
	"net"
	"slices"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/svcplane/svcplane/internal/registry/resource"
)

// Upstream's limits (pkg/apis/discovery/validation).
const (
	maxEndpoints      = 1000
	maxPorts          = 100
	maxAddresses      = 100
	maxTopologyLabels = 16
	maxZoneHints      = 8
	maxNodeHints      = 8
)

// supportedAddressTypes and supportedProtocols in upstream's (sorted)
// order of its messages.
var (
	supportedAddressTypes = []discoveryv1.AddressType{discoveryv1.AddressTypeFQDN, discoveryv1.AddressTypeIPv4, discoveryv1.AddressTypeIPv6}
	supportedProtocols    = []corev1.Protocol{corev1.ProtocolSCTP, corev1.ProtocolTCP, corev1.ProtocolUDP}
)

// validate checks an EndpointSlice as upstream's ValidateEndpointSlice.
func validate(s *discoveryv1.EndpointSlice) field.ErrorList {
	var errs field.ErrorList
	switch {
	case s.AddressType == "":
		errs = append(errs, field.Required(field.NewPath("addressType"), ""))
	case !slices.Contains(supportedAddressTypes, s.AddressType):
		errs = append(errs, field.NotSupported(field.NewPath("addressType"), s.AddressType, supportedAddressTypes))
	}
	errs = append(errs, validateEndpoints(s.Endpoints, s.AddressType, field.NewPath("endpoints"))...)
	return append(errs, validatePorts(s.Ports, field.NewPath("ports"))...)
}

func validateEndpoints(eps []discoveryv1.Endpoint, t discoveryv1.AddressType, fld *field.Path) field.ErrorList {
	if len(eps) > maxEndpoints {
		return field.ErrorList{field.TooMany(fld, len(eps), maxEndpoints)}
	}
	var errs field.ErrorList
	for i, ep := range eps {
		p := fld.Index(i)
		addrs := p.Child("addresses")
		if len(ep.Addresses) == 0 {
			errs = append(errs, field.Required(addrs, "must contain at least 1 address"))
		} else if len(ep.Addresses) > maxAddresses {
			errs = append(errs, field.TooMany(addrs, len(ep.Addresses), maxAddresses))
		}
		for j, a := range ep.Addresses {
			errs = append(errs, validateAddress(t, a, addrs, addrs.Index(j))...)
		}
		if ep.NodeName != nil {
			for _, msg := range apivalidation.NameIsDNSSubdomain(*ep.NodeName, false) {
				errs = append(errs, field.Invalid(p.Child("nodeName"), *ep.NodeName, msg))
			}
		}
		topo := p.Child("deprecatedTopology")
		if len(ep.DeprecatedTopology) > maxTopologyLabels {
			errs = append(errs, field.TooMany(topo, len(ep.DeprecatedTopology), maxTopologyLabels))
		}
		errs = append(errs, metav1validation.ValidateLabels(ep.DeprecatedTopology, topo)...)
		if ep.Hostname != nil {
			for _, msg := range validation.IsDNS1123Label(*ep.Hostname) {
				errs = append(errs, field.Invalid(p.Child("hostname"), *ep.Hostname, msg))
			}
		}
		if ep.Hints != nil {
			errs = append(errs, validateHints(ep.Hints, p.Child("hints"))...)
		}
	}
	return errs
}

// validateAddress: an address of the slice's type; an IP is reported at
// its index when malformed, at the list when of the other family.
func validateAddress(t discoveryv1.AddressType, a string, list, fld *field.Path) field.ErrorList {
	switch t {
	case discoveryv1.AddressTypeIPv4, discoveryv1.AddressTypeIPv6:
		var errs field.ErrorList
		if t == discoveryv1.AddressTypeIPv4 {
			errs = validation.IsValidIPForLegacyField(fld, a, resource.StrictIPCIDRValidation, nil)
		} else {
			errs = validation.IsValidIP(fld, a)
		}
		if len(errs) > 0 {
			return errs
		}
		if ip := net.ParseIP(a); (ip.To4() != nil) != (t == discoveryv1.AddressTypeIPv4) {
			errs = append(errs, field.Invalid(list, a, "must be an "+string(t)+" address"))
		}
		return append(errs, validateEndpointIP(a, fld)...)
	case discoveryv1.AddressTypeFQDN:
		return validation.IsFullyQualifiedDomainName(fld, a)
	}
	return nil
}

// validateEndpointIP refuses the addresses no endpoint may have.
func validateEndpointIP(a string, fld *field.Path) field.ErrorList {
	ip := net.ParseIP(a)
	var errs field.ErrorList
	if ip.IsUnspecified() {
		errs = append(errs, field.Invalid(fld, a, fmt.Sprintf("may not be unspecified (%v)", a)))
	}
	if ip.IsLoopback() {
		errs = append(errs, field.Invalid(fld, a, "may not be in the loopback range (127.0.0.0/8, ::1/128)"))
	}
	if ip.IsLinkLocalUnicast() {
		errs = append(errs, field.Invalid(fld, a, "may not be in the link-local range (169.254.0.0/16, fe80::/10)"))
	}
	if ip.IsLinkLocalMulticast() {
		errs = append(errs, field.Invalid(fld, a, "may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)"))
	}
	return errs
}

func validateHints(h *discoveryv1.EndpointHints, fld *field.Path) field.ErrorList {
	zones := fld.Child("forZones")
	if len(h.ForZones) > maxZoneHints {
		return field.ErrorList{field.TooMany(zones, len(h.ForZones), maxZoneHints)}
	}
	var errs field.ErrorList
	seen := []string{}
	for i, z := range h.ForZones {
		p := zones.Index(i).Child("name")
		if slices.Contains(seen, z.Name) {
			errs = append(errs, field.Duplicate(p, z.Name))
		} else {
			seen = append(seen, z.Name)
		}
		for _, msg := range validation.IsValidLabelValue(z.Name) {
			errs = append(errs, field.Invalid(p, z.Name, msg))
		}
	}
	nodes := fld.Child("forNodes")
	if len(h.ForNodes) > maxNodeHints {
		return append(errs, field.TooMany(nodes, len(h.ForNodes), maxNodeHints))
	}
	seen = []string{}
	for i, n := range h.ForNodes {
		p := nodes.Index(i).Child("name")
		if slices.Contains(seen, n.Name) {
			errs = append(errs, field.Duplicate(p, n.Name))
		} else {
			seen = append(seen, n.Name)
		}
		for _, msg := range apivalidation.NameIsDNSSubdomain(n.Name, false) {
			errs = append(errs, field.Invalid(p, n.Name, msg))
		}
	}
	return errs
}

func validatePorts(ports []discoveryv1.EndpointPort, fld *field.Path) field.ErrorList {
	if len(ports) > maxPorts {
		return field.ErrorList{field.TooMany(fld, len(ports), maxPorts)}
	}
	var errs field.ErrorList
	names := []string{}
	for i, port := range ports {
		p := fld.Index(i)
		name := ""
		if port.Name != nil {
			name = *port.Name
		}
		if name != "" {
			for _, msg := range validation.IsDNS1123Label(name) {
				errs = append(errs, field.Invalid(p.Child("name"), name, msg))
			}
		}
		if slices.Contains(names, name) {
			errs = append(errs, field.Duplicate(p.Child("name"), port.Name))
		} else {
			names = append(names, name)
		}
		switch {
		case port.Protocol == nil:
			errs = append(errs, field.Required(p.Child("protocol"), ""))
		case !slices.Contains(supportedProtocols, *port.Protocol):
			errs = append(errs, field.NotSupported(p.Child("protocol"), *port.Protocol, supportedProtocols))
		}
		if port.AppProtocol != nil {
			errs = append(errs, metav1validation.ValidateLabelName(*port.AppProtocol, p.Child("appProtocol"))...)
		}
	}
	return errs
}
