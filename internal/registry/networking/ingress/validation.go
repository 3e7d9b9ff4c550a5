package ingress

import (
	"fmt"
	"strings"

	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/api/validate/content"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	netutils "k8s.io/utils/net"

	"github.com/svcplane/svcplane/internal/registry/resource"
)

const classAnnotation = "kubernetes.io/ingress.class"

var (
	pathTypes            = []string{string(networkingv1.PathTypeExact), string(networkingv1.PathTypeImplementationSpecific), string(networkingv1.PathTypePrefix)}
	invalidPathSequences = []string{"//", "/./", "/../", "%2f", "%2F"}
	invalidPathSuffixes  = []string{"/..", "/."}
)

// options are upstream's IngressValidationOptions: what an update keeps
// accepting because the stored object already has it. Service names are
// DNS labels (RelaxedServiceNameValidation, on in 1.36).
type options struct {
	allowInvalidSecretName       bool
	allowInvalidWildcardHostRule bool
}

// ValidateCreate checks a new Ingress as upstream's ValidateIngressCreate
// (beyond the object meta): the spec, and the ingress.class annotation
// equal to ingressClassName when both are set.
func ValidateCreate(ing *networkingv1.Ingress) field.ErrorList {
	errs := ValidateSpec(&ing.Spec, field.NewPath("spec"), options{})
	if v, ok := ing.Annotations[classAnnotation]; ok && ing.Spec.IngressClassName != nil && v != *ing.Spec.IngressClassName {
		errs = append(errs, field.Invalid(field.NewPath("annotations").Child(classAnnotation), v, "must match `ingressClassName` when both are specified"))
	}
	return errs
}

// optionsFor returns the allowances of an update of old.
func optionsFor(old *networkingv1.Ingress) options {
	var o options
	for _, tls := range old.Spec.TLS {
		if len(validateTLSSecretName(tls.SecretName)) > 0 {
			o.allowInvalidSecretName = true
		}
	}
	for _, r := range old.Spec.Rules {
		if strings.Contains(r.Host, "*") && len(validateRuleValue(&r.IngressRuleValue, nil)) > 0 {
			o.allowInvalidWildcardHostRule = true
		}
	}
	return o
}

// ValidateSpec checks a spec as upstream's ValidateIngressSpec.
func ValidateSpec(spec *networkingv1.IngressSpec, fld *field.Path, o options) field.ErrorList {
	var errs field.ErrorList
	if len(spec.Rules) == 0 && spec.DefaultBackend == nil {
		errs = append(errs, field.Invalid(fld, resource.AsInternal(spec.Rules), "either `defaultBackend` or `rules` must be specified"))
	}
	if spec.DefaultBackend != nil {
		errs = append(errs, validateBackend(spec.DefaultBackend, fld.Child("defaultBackend"))...)
	}
	errs = append(errs, validateRules(spec.Rules, fld.Child("rules"), o)...)
	errs = append(errs, validateTLS(spec.TLS, fld.Child("tls"), o)...)
	if spec.IngressClassName != nil {
		for _, msg := range apivalidation.NameIsDNSSubdomain(*spec.IngressClassName, false) {
			errs = append(errs, field.Invalid(fld.Child("ingressClassName"), *spec.IngressClassName, msg))
		}
	}
	return errs
}

func validateHost(host string, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	check := validation.IsDNS1123Subdomain
	if strings.Contains(host, "*") {
		check = validation.IsWildcardDNS1123Subdomain
	}
	for _, msg := range check(host) {
		errs = append(errs, field.Invalid(fld, host, msg))
	}
	return errs
}

func validateTLS(tls []networkingv1.IngressTLS, fld *field.Path, o options) field.ErrorList {
	var errs field.ErrorList
	for i, t := range tls {
		for j, host := range t.Hosts {
			errs = append(errs, validateHost(host, fld.Index(i).Child("hosts").Index(j))...)
		}
		if !o.allowInvalidSecretName {
			for _, msg := range validateTLSSecretName(t.SecretName) {
				errs = append(errs, field.Invalid(fld.Index(i).Child("secretName"), t.SecretName, msg))
			}
		}
	}
	return errs
}

func validateTLSSecretName(name string) []string {
	if name == "" {
		return nil
	}
	return apivalidation.NameIsDNSSubdomain(name, false)
}

func validateRules(rules []networkingv1.IngressRule, fld *field.Path, o options) field.ErrorList {
	var errs field.ErrorList
	for i := range rules {
		r, p := &rules[i], fld.Index(i)
		wildcard := false
		if r.Host != "" {
			if netutils.ParseIPSloppy(r.Host) != nil {
				errs = append(errs, field.Invalid(p.Child("host"), r.Host, "must be a DNS name, not an IP address"))
			}
			wildcard = strings.Contains(r.Host, "*")
			errs = append(errs, validateHost(r.Host, p.Child("host"))...)
		}
		if !wildcard || !o.allowInvalidWildcardHostRule {
			errs = append(errs, validateRuleValue(&r.IngressRuleValue, p)...)
		}
	}
	return errs
}

func validateRuleValue(v *networkingv1.IngressRuleValue, fld *field.Path) field.ErrorList {
	if v.HTTP == nil {
		return nil
	}
	var errs field.ErrorList
	fld = fld.Child("http")
	if len(v.HTTP.Paths) == 0 {
		errs = append(errs, field.Required(fld.Child("paths"), ""))
	}
	for i := range v.HTTP.Paths {
		errs = append(errs, validatePath(&v.HTTP.Paths[i], fld.Child("paths").Index(i))...)
	}
	return errs
}

func validatePath(p *networkingv1.HTTPIngressPath, fld *field.Path) field.ErrorList {
	if p.PathType == nil {
		return field.ErrorList{field.Required(fld.Child("pathType"), "pathType must be specified")}
	}
	var errs field.ErrorList
	pathFld := fld.Child("path")
	switch *p.PathType {
	case networkingv1.PathTypeExact, networkingv1.PathTypePrefix:
		if !strings.HasPrefix(p.Path, "/") {
			errs = append(errs, field.Invalid(pathFld, p.Path, "must be an absolute path"))
		}
		if p.Path != "" {
			for _, seq := range invalidPathSequences {
				if strings.Contains(p.Path, seq) {
					errs = append(errs, field.Invalid(pathFld, p.Path, fmt.Sprintf("must not contain '%s'", seq)))
				}
			}
			for _, suffix := range invalidPathSuffixes {
				if strings.HasSuffix(p.Path, suffix) {
					errs = append(errs, field.Invalid(pathFld, p.Path, fmt.Sprintf("cannot end with '%s'", suffix)))
				}
			}
		}
	case networkingv1.PathTypeImplementationSpecific:
		if p.Path != "" && !strings.HasPrefix(p.Path, "/") {
			errs = append(errs, field.Invalid(pathFld, p.Path, "must be an absolute path"))
		}
	default:
		errs = append(errs, field.NotSupported(fld.Child("pathType"), *p.PathType, pathTypes))
	}
	return append(errs, validateBackend(&p.Backend, fld.Child("backend"))...)
}

// validateBackend checks a backend as upstream's validateIngressBackend.
func validateBackend(b *networkingv1.IngressBackend, fld *field.Path) field.ErrorList {
	switch {
	case b.Resource != nil && b.Service != nil:
		return field.ErrorList{field.Invalid(fld, "", "cannot set both resource and service backends")}
	case b.Resource != nil:
		return validateResourceRef(b.Resource.APIGroup, b.Resource.Kind, b.Resource.Name, fld.Child("resource"))
	case b.Service == nil:
		return field.ErrorList{field.Invalid(fld, "", "resource or service backend is required")}
	}
	var errs field.ErrorList
	svc := b.Service
	if svc.Name == "" {
		errs = append(errs, field.Required(fld.Child("service", "name"), ""))
	} else {
		for _, msg := range apivalidation.NameIsDNSLabel(svc.Name, false) {
			errs = append(errs, field.Invalid(fld.Child("service", "name"), svc.Name, msg))
		}
	}
	hasName, hasNumber := svc.Port.Name != "", svc.Port.Number != 0
	switch {
	case hasName && hasNumber:
		errs = append(errs, field.Invalid(fld, "", "cannot set both port name & port number"))
	case hasName:
		for _, msg := range validation.IsValidPortName(svc.Port.Name) {
			errs = append(errs, field.Invalid(fld.Child("service", "port", "name"), svc.Port.Name, msg))
		}
	case hasNumber:
		for _, msg := range validation.IsValidPortNum(int(svc.Port.Number)) {
			errs = append(errs, field.Invalid(fld.Child("service", "port", "number"), svc.Port.Number, msg))
		}
	default:
		errs = append(errs, field.Required(fld, "port name or number is required"))
	}
	return errs
}

// validateResourceRef checks a typed local reference (upstream's
// validateIngressTypedLocalObjectReference).
func validateResourceRef(group *string, kind, name string, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	if group != nil {
		for _, msg := range validation.IsDNS1123Subdomain(*group) {
			errs = append(errs, field.Invalid(fld.Child("apiGroup"), *group, msg))
		}
	}
	errs = append(errs, RequiredPathSegment(kind, fld.Child("kind"))...)
	return append(errs, RequiredPathSegment(name, fld.Child("name"))...)
}

// requiredPathSegment: set, and usable as a path segment.
func RequiredPathSegment(v string, fld *field.Path) field.ErrorList {
	if v == "" {
		return field.ErrorList{field.Required(fld, "")}
	}
	var errs field.ErrorList
	for _, msg := range content.IsPathSegmentName(v) {
		errs = append(errs, field.Invalid(fld, v, msg))
	}
	return errs
}

// ValidateLoadBalancerStatus checks status.loadBalancer as upstream's
// ValidateIngressLoadBalancerStatus (IPs already stored are not re-judged).
func ValidateLoadBalancerStatus(st, old *networkingv1.IngressLoadBalancerStatus, fld *field.Path) field.ErrorList {
	var oldIPs []string
	for _, i := range old.Ingress {
		if i.IP != "" {
			oldIPs = append(oldIPs, i.IP)
		}
	}
	var errs field.ErrorList
	for i, ing := range st.Ingress {
		p := fld.Child("ingress").Index(i)
		if ing.IP != "" {
			errs = append(errs, validation.IsValidIPForLegacyField(p.Child("ip"), ing.IP, resource.StrictIPCIDRValidation, oldIPs)...)
		}
		if ing.Hostname != "" {
			for _, msg := range validation.IsDNS1123Subdomain(ing.Hostname) {
				errs = append(errs, field.Invalid(p.Child("hostname"), ing.Hostname, msg))
			}
			if netutils.ParseIPSloppy(ing.Hostname) != nil {
				errs = append(errs, field.Invalid(p.Child("hostname"), ing.Hostname, "must be a DNS name, not an IP address"))
			}
		}
	}
	return errs
}
