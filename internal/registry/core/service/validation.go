package service

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/svcplane/svcplane/internal/registry/core/pod"
)

var supportedTypes = []corev1.ServiceType{corev1.ServiceTypeClusterIP, corev1.ServiceTypeExternalName,
	corev1.ServiceTypeLoadBalancer, corev1.ServiceTypeNodePort}

// Validate checks a Service with upstream's field paths and messages.
func Validate(svc *corev1.Service) field.ErrorList {
	var errs field.ErrorList
	spec, fld := &svc.Spec, field.NewPath("spec")
	switch spec.Type {
	case corev1.ServiceTypeClusterIP, corev1.ServiceTypeNodePort, corev1.ServiceTypeLoadBalancer:
		if len(spec.Ports) == 0 && spec.ClusterIP != corev1.ClusterIPNone {
			errs = append(errs, field.Required(fld.Child("ports"), ""))
		}
	case corev1.ServiceTypeExternalName:
		if spec.ExternalName == "" {
			errs = append(errs, field.Required(fld.Child("externalName"), ""))
		} else {
			for _, msg := range validation.IsDNS1123Subdomain(spec.ExternalName) {
				errs = append(errs, field.Invalid(fld.Child("externalName"), spec.ExternalName, msg))
			}
		}
	case "":
		errs = append(errs, field.Required(fld.Child("type"), ""))
	default:
		errs = append(errs, field.NotSupported(fld.Child("type"), spec.Type, supportedTypes))
	}
	errs = append(errs, validatePorts(spec, fld.Child("ports"))...)
	if spec.Selector != nil {
		errs = append(errs, metav1validation.ValidateLabels(spec.Selector, fld.Child("selector"))...)
	}
	errs = append(errs, validateAffinity(spec, fld)...)
	if spec.Type == corev1.ServiceTypeClusterIP || spec.Type == corev1.ServiceTypeExternalName {
		for i, p := range spec.Ports {
			if p.NodePort != 0 {
				errs = append(errs, field.Forbidden(fld.Child("ports").Index(i).Child("nodePort"),
					fmt.Sprintf("may not be used when `type` is '%s'", spec.Type)))
			}
		}
	}
	if spec.ExternalTrafficPolicy != "" && spec.Type != corev1.ServiceTypeNodePort && spec.Type != corev1.ServiceTypeLoadBalancer {
		errs = append(errs, field.Invalid(fld.Child("externalTrafficPolicy"), spec.ExternalTrafficPolicy,
			"may only be set for externally-accessible services"))
	}
	if spec.HealthCheckNodePort != 0 && !(spec.Type == corev1.ServiceTypeLoadBalancer &&
		spec.ExternalTrafficPolicy == corev1.ServiceExternalTrafficPolicyLocal) {
		errs = append(errs, field.Invalid(fld.Child("healthCheckNodePort"), spec.HealthCheckNodePort,
			"may only be set when `type` is 'LoadBalancer' and `externalTrafficPolicy` is 'Local'"))
	}
	return errs
}

func validatePorts(spec *corev1.ServiceSpec, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	names := sets.New[string]()
	type key struct {
		port  int32
		proto corev1.Protocol
	}
	seen := map[key]bool{}
	for i, p := range spec.Ports {
		pf := fld.Index(i)
		if len(spec.Ports) > 1 && p.Name == "" {
			errs = append(errs, field.Required(pf.Child("name"), ""))
		} else if p.Name != "" {
			for _, msg := range validation.IsDNS1123Label(p.Name) {
				errs = append(errs, field.Invalid(pf.Child("name"), p.Name, msg))
			}
			if names.Has(p.Name) {
				errs = append(errs, field.Duplicate(pf.Child("name"), p.Name))
			}
			names.Insert(p.Name)
		}
		for _, msg := range validation.IsValidPortNum(int(p.Port)) {
			errs = append(errs, field.Invalid(pf.Child("port"), p.Port, msg))
		}
		errs = append(errs, pod.ValidateProtocol(p.Protocol, pf.Child("protocol"))...)
		if p.NodePort != 0 {
			for _, msg := range validation.IsValidPortNum(int(p.NodePort)) {
				errs = append(errs, field.Invalid(pf.Child("nodePort"), p.NodePort, msg))
			}
		}
		errs = append(errs, validateTargetPort(p, pf.Child("targetPort"))...)
		k := key{p.Port, p.Protocol}
		if seen[k] {
			errs = append(errs, field.Duplicate(pf, corev1.ServicePort{Port: p.Port, Protocol: p.Protocol}))
		}
		seen[k] = true
	}
	return errs
}

func validateTargetPort(p corev1.ServicePort, fld *field.Path) field.ErrorList {
	if p.TargetPort.Type == 1 { // string
		var errs field.ErrorList
		for _, msg := range validation.IsValidPortName(p.TargetPort.StrVal) {
			errs = append(errs, field.Invalid(fld, p.TargetPort.StrVal, msg))
		}
		return errs
	}
	if p.TargetPort.IntVal == 0 {
		return nil
	}
	var errs field.ErrorList
	for _, msg := range validation.IsValidPortNum(int(p.TargetPort.IntVal)) {
		errs = append(errs, field.Invalid(fld, p.TargetPort.IntVal, msg))
	}
	return errs
}

func validateAffinity(spec *corev1.ServiceSpec, fld *field.Path) field.ErrorList {
	switch spec.SessionAffinity {
	case corev1.ServiceAffinityNone, "":
		if spec.SessionAffinityConfig != nil {
			return field.ErrorList{field.Forbidden(fld.Child("sessionAffinityConfig"),
				fmt.Sprintf("must not be set when session affinity is %s", corev1.ServiceAffinityNone))}
		}
	case corev1.ServiceAffinityClientIP:
		c := spec.SessionAffinityConfig
		p := fld.Child("sessionAffinityConfig").Child("clientIP").Child("timeoutSeconds")
		if c == nil || c.ClientIP == nil || c.ClientIP.TimeoutSeconds == nil {
			return field.ErrorList{field.Required(p, "when session affinity type is ClientIP")}
		}
		if t := *c.ClientIP.TimeoutSeconds; t <= 0 || t > maxClientIPAffinitySeconds {
			return field.ErrorList{field.Invalid(p, t,
				fmt.Sprintf("must be greater than 0 and less than %d", maxClientIPAffinitySeconds))}
		}
	default:
		return field.ErrorList{field.NotSupported(fld.Child("sessionAffinity"), spec.SessionAffinity,
			[]corev1.ServiceAffinity{corev1.ServiceAffinityClientIP, corev1.ServiceAffinityNone})}
	}
	return nil
}

// ValidateUpdate checks a Service update: everything Validate checks, and the
// cluster IP cannot change once set.
func ValidateUpdate(svc, old *corev1.Service) field.ErrorList {
	errs := Validate(svc)
	if old.Spec.ClusterIP != "" && svc.Spec.Type != corev1.ServiceTypeExternalName &&
		old.Spec.Type != corev1.ServiceTypeExternalName {
		errs = append(errs, apivalidation.ValidateImmutableField(svc.Spec.ClusterIP, old.Spec.ClusterIP,
			field.NewPath("spec", "clusterIP"))...)
	}
	return errs
}

// maxClientIPAffinitySeconds is upstream's core.MaxClientIPServiceAffinitySeconds (one day).
const maxClientIPAffinitySeconds = 86400
