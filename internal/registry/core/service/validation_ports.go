package service

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// supportedProtocols in upstream's (sorted) order.
var supportedProtocols = []corev1.Protocol{corev1.ProtocolSCTP, corev1.ProtocolTCP, corev1.ProtocolUDP}

// validatePorts is upstream's validateServicePort over every port: names
// (required when there are several, DNS-1123 labels, unique), port numbers,
// protocols, target ports and appProtocol.
func validatePorts(ports []corev1.ServicePort, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	names := sets.New[string]()
	for i := range ports {
		p, pf := &ports[i], fld.Index(i)
		switch {
		case len(ports) > 1 && p.Name == "":
			errs = append(errs, field.Required(pf.Child("name"), ""))
		case p.Name != "":
			for _, msg := range validation.IsDNS1123Label(p.Name) {
				errs = append(errs, field.Invalid(pf.Child("name"), p.Name, msg))
			}
			if names.Has(p.Name) {
				errs = append(errs, field.Duplicate(pf.Child("name"), p.Name))
			} else {
				names.Insert(p.Name)
			}
		}
		for _, msg := range validation.IsValidPortNum(int(p.Port)) {
			errs = append(errs, field.Invalid(pf.Child("port"), p.Port, msg))
		}
		switch {
		case p.Protocol == "":
			errs = append(errs, field.Required(pf.Child("protocol"), ""))
		case !contains(supportedProtocols, p.Protocol):
			errs = append(errs, field.NotSupported(pf.Child("protocol"), p.Protocol, supportedProtocols))
		}
		errs = append(errs, validatePortNumOrName(p.TargetPort, pf.Child("targetPort"))...)
		if p.AppProtocol != nil {
			for _, msg := range validation.IsQualifiedName(*p.AppProtocol) {
				errs = append(errs, field.Invalid(pf.Child("appProtocol"), *p.AppProtocol, msg))
			}
		}
	}
	return errs
}

// validatePortNumOrName is upstream's ValidatePortNumOrName: a port number
// (1-65535) or an IANA service name.
func validatePortNumOrName(port intstr.IntOrString, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	switch port.Type {
	case intstr.Int:
		for _, msg := range validation.IsValidPortNum(port.IntValue()) {
			errs = append(errs, field.Invalid(fld, port.IntValue(), msg))
		}
	case intstr.String:
		for _, msg := range validation.IsValidPortName(port.StrVal) {
			errs = append(errs, field.Invalid(fld, port.StrVal, msg))
		}
	default:
		errs = append(errs, field.InternalError(fld, fmt.Errorf("unknown type: %v", port.Type)))
	}
	return errs
}

// validateNodePorts: no node ports on ClusterIP Services, and no node port
// used twice for the same protocol. Upstream does not check the range of a
// requested nodePort here (the allocator does).
func validateNodePorts(spec *corev1.ServiceSpec, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	if spec.Type == corev1.ServiceTypeClusterIP {
		for i := range spec.Ports {
			if spec.Ports[i].NodePort != 0 {
				errs = append(errs, field.Forbidden(fld.Index(i).Child("nodePort"),
					"may not be used when `type` is 'ClusterIP'"))
			}
		}
	}
	type key struct {
		proto corev1.Protocol
		port  int32
	}
	seen := map[key]bool{}
	for i := range spec.Ports {
		p := &spec.Ports[i]
		if p.NodePort == 0 {
			continue
		}
		k := key{p.Protocol, p.NodePort}
		if seen[k] {
			errs = append(errs, field.Duplicate(fld.Index(i).Child("nodePort"), p.NodePort))
		}
		seen[k] = true
	}
	return errs
}

// portKey renders like upstream's internal core.ServicePort, whose fields
// have no JSON tags: the Duplicate error for a repeated (port, protocol)
// prints it as {"Name":"","Protocol":"TCP","AppProtocol":null,"Port":80,
// "TargetPort":0,"NodePort":0}.
type portKey struct {
	Name        string
	Protocol    corev1.Protocol
	AppProtocol *string
	Port        int32
	TargetPort  intstr.IntOrString
	NodePort    int32
}

// validateDuplicatePorts: each (port, protocol) pair at most once.
func validateDuplicatePorts(ports []corev1.ServicePort, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	seen := map[portKey]bool{}
	for i := range ports {
		k := portKey{Protocol: ports[i].Protocol, Port: ports[i].Port}
		if seen[k] {
			errs = append(errs, field.Duplicate(fld.Index(i), k))
		}
		seen[k] = true
	}
	return errs
}
