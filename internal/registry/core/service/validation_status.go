package service

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	netutils "k8s.io/utils/net"
)

var supportedIPModes = []corev1.LoadBalancerIPMode{corev1.LoadBalancerIPModeProxy, corev1.LoadBalancerIPModeVIP}

// ValidateStatusUpdate checks a /status update as upstream's
// ValidateServiceStatusUpdate: status.loadBalancer.ingress is only for
// LoadBalancer Services; each entry's ip is an IP and needs an ipMode (VIP
// or Proxy), which is forbidden without an ip; hostname is a DNS name, not
// an IP. Ingress IPs already in old are not re-judged. Upstream does not
// validate status.conditions of Services, so neither do we.
func ValidateStatusUpdate(svc, old *corev1.Service) field.ErrorList {
	var oldIPs []string
	for _, ing := range old.Status.LoadBalancer.Ingress {
		if ing.IP != "" {
			oldIPs = append(oldIPs, ing.IP)
		}
	}
	return validateLoadBalancerStatus(&svc.Status.LoadBalancer, &svc.Spec, oldIPs,
		field.NewPath("status", "loadBalancer"))
}

func validateLoadBalancerStatus(st *corev1.LoadBalancerStatus, spec *corev1.ServiceSpec, oldIPs []string, fld *field.Path) field.ErrorList {
	ingPath := fld.Child("ingress")
	if spec.Type != corev1.ServiceTypeLoadBalancer && len(st.Ingress) != 0 {
		return field.ErrorList{field.Forbidden(ingPath, "may only be used when `spec.type` is 'LoadBalancer'")}
	}
	var errs field.ErrorList
	for i := range st.Ingress {
		ing, p := &st.Ingress[i], ingPath.Index(i)
		if ing.IP != "" {
			errs = append(errs, validation.IsValidIPForLegacyField(p.Child("ip"), ing.IP, strictIPs, oldIPs)...)
		}
		switch {
		case ing.IPMode == nil:
			if ing.IP != "" {
				errs = append(errs, field.Required(p.Child("ipMode"), "must be specified when `ip` is set"))
			}
		case ing.IP == "":
			errs = append(errs, field.Forbidden(p.Child("ipMode"), "may not be specified when `ip` is not set"))
		case !contains(supportedIPModes, *ing.IPMode):
			errs = append(errs, field.NotSupported(p.Child("ipMode"), *ing.IPMode, supportedIPModes))
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
