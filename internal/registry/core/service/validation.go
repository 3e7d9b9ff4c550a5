package service

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/svcplane/svcplane/internal/registry/resource"
	netutils "k8s.io/utils/net"
)

// Validation of a Service as upstream's ValidateServiceCreate and
// ValidateServiceUpdate (pkg/apis/core/validation) do it, after defaulting
// and clusterIP normalisation, with the default feature gates of 1.36:
// StrictIPCIDRValidation off (IPs and CIDRs parse "sloppily", as they always
// have), PreferSameTrafficDistribution on, AllowServiceLBStatusOnNonLB off.
// Object metadata is checked by the resource framework.

// Supported values, in the order upstream lists them in NotSupported errors
// (sets.List sorts them).
var (
	supportedServiceTypes = []corev1.ServiceType{corev1.ServiceTypeClusterIP,
		corev1.ServiceTypeExternalName, corev1.ServiceTypeLoadBalancer, corev1.ServiceTypeNodePort}
	supportedAffinities = []corev1.ServiceAffinity{corev1.ServiceAffinityClientIP,
		corev1.ServiceAffinityNone}
	supportedExternalTrafficPolicies = []corev1.ServiceExternalTrafficPolicy{
		corev1.ServiceExternalTrafficPolicyCluster, corev1.ServiceExternalTrafficPolicyLocal}
	supportedInternalTrafficPolicies = []corev1.ServiceInternalTrafficPolicy{
		corev1.ServiceInternalTrafficPolicyCluster, corev1.ServiceInternalTrafficPolicyLocal}
	// Not sorted: upstream lists these in this order.
	supportedTrafficDistributions = []string{corev1.ServiceTrafficDistributionPreferClose,
		corev1.ServiceTrafficDistributionPreferSameZone, corev1.ServiceTrafficDistributionPreferSameNode}
)

// maxClientIPAffinitySeconds is upstream's core.MaxClientIPServiceAffinitySeconds (one day).
const maxClientIPAffinitySeconds = 86400

// strictIPs is the StrictIPCIDRValidation feature gate.
const strictIPs = resource.StrictIPCIDRValidation

// Validate checks a Service on create with upstream's field paths and messages.
func Validate(svc *corev1.Service) field.ErrorList {
	return validateService(svc, nil)
}

// ValidateUpdate checks a Service update: the dual-stack upgrade and
// downgrade rules, loadBalancerClass and healthCheckNodePort immutability,
// then everything Validate checks (IPs already stored are not re-judged).
func ValidateUpdate(svc, old *corev1.Service) field.ErrorList {
	errs := validateUpgradeDowngradeClusterIPs(old, svc)
	errs = append(errs, validateUpgradeDowngradeIPFamilies(old, svc)...)
	errs = append(errs, validateLoadBalancerClass(old, svc)...)
	if needsHealthCheck(old) && needsHealthCheck(svc) &&
		svc.Spec.HealthCheckNodePort != old.Spec.HealthCheckNodePort {
		errs = append(errs, field.Forbidden(field.NewPath("spec", "healthCheckNodePort"), "field is immutable"))
	}
	return append(errs, validateService(svc, old)...)
}

// validateService is upstream's validateService; old is nil on create.
func validateService(svc, old *corev1.Service) field.ErrorList {
	errs := validateTopologyAnnotations(svc.Annotations)
	spec, specPath := &svc.Spec, field.NewPath("spec")
	if len(spec.Ports) == 0 && !isHeadless(svc) && spec.Type != corev1.ServiceTypeExternalName {
		errs = append(errs, field.Required(specPath.Child("ports"), ""))
	}
	errs = append(errs, validateTypeSpecific(svc)...)
	errs = append(errs, validatePorts(spec.Ports, specPath.Child("ports"))...)
	if spec.Selector != nil {
		errs = append(errs, metav1validation.ValidateLabels(spec.Selector, specPath.Child("selector"))...)
	}
	errs = append(errs, validateSessionAffinity(spec, specPath)...)
	errs = append(errs, ValidateClusterIPsRelatedFields(svc, old)...)
	errs = append(errs, validateExternalIPs(spec.ExternalIPs, oldSpec(old).ExternalIPs, specPath.Child("externalIPs"))...)
	switch {
	case spec.Type == "":
		errs = append(errs, field.Required(specPath.Child("type"), ""))
	case !contains(supportedServiceTypes, spec.Type):
		errs = append(errs, field.NotSupported(specPath.Child("type"), spec.Type, supportedServiceTypes))
	}
	errs = append(errs, validateNodePorts(spec, specPath.Child("ports"))...)
	errs = append(errs, validateDuplicatePorts(spec.Ports, specPath.Child("ports"))...)
	errs = append(errs, validateSourceRanges(svc, old)...)
	if spec.AllocateLoadBalancerNodePorts != nil && spec.Type != corev1.ServiceTypeLoadBalancer {
		errs = append(errs, field.Forbidden(specPath.Child("allocateLoadBalancerNodePorts"),
			"may only be used when `type` is 'LoadBalancer'"))
	}
	if spec.Type == corev1.ServiceTypeLoadBalancer && spec.AllocateLoadBalancerNodePorts == nil {
		// Upstream reports this one at the root, without "spec.".
		errs = append(errs, field.Required(field.NewPath("allocateLoadBalancerNodePorts"), ""))
	}
	errs = append(errs, validateLoadBalancerClass(nil, svc)...)
	errs = append(errs, validateExternalTrafficPolicy(svc)...)
	errs = append(errs, validateInternalTrafficPolicy(spec)...)
	return append(errs, validateTrafficDistribution(spec)...)
}

// validateTopologyAnnotations: the topology-mode annotation must agree with
// the deprecated topology-aware-hints one when both are set.
func validateTopologyAnnotations(annotations map[string]string) field.ErrorList {
	mode, modeSet := annotations[corev1.AnnotationTopologyMode]
	hints, hintsSet := annotations[corev1.DeprecatedAnnotationTopologyAwareHints]
	if !modeSet || !hintsSet || mode == hints {
		return nil
	}
	return field.ErrorList{field.Invalid(field.NewPath("metadata", "annotations").Key(corev1.AnnotationTopologyMode),
		mode, fmt.Sprintf("must match annotations[%s] when both are specified", corev1.DeprecatedAnnotationTopologyAwareHints))}
}

// validateTypeSpecific: headless is not allowed for NodePort and
// LoadBalancer; ExternalName has no cluster IPs or families and needs a
// DNS name.
func validateTypeSpecific(svc *corev1.Service) field.ErrorList {
	spec, specPath := &svc.Spec, field.NewPath("spec")
	switch spec.Type {
	case corev1.ServiceTypeLoadBalancer, corev1.ServiceTypeNodePort:
		if isHeadless(svc) {
			return field.ErrorList{field.Invalid(specPath.Child("clusterIPs").Index(0), spec.ClusterIPs[0],
				fmt.Sprintf("may not be set to 'None' for %s services", spec.Type))}
		}
	case corev1.ServiceTypeExternalName:
		var errs field.ErrorList
		if len(spec.ClusterIPs) > 0 {
			errs = append(errs, field.Forbidden(specPath.Child("clusterIPs"), "may not be set for ExternalName services"))
		}
		if len(spec.IPFamilies) > 0 {
			errs = append(errs, field.Forbidden(specPath.Child("ipFamilies"), "may not be set for ExternalName services"))
		}
		if spec.IPFamilyPolicy != nil {
			errs = append(errs, field.Forbidden(specPath.Child("ipFamilyPolicy"), "may not be set for ExternalName services"))
		}
		// A trailing dot marks the CNAME as fully qualified.
		cname := strings.TrimSuffix(spec.ExternalName, ".")
		if cname == "" {
			return append(errs, field.Required(specPath.Child("externalName"), ""))
		}
		for _, msg := range validation.IsDNS1123Subdomain(cname) {
			errs = append(errs, field.Invalid(specPath.Child("externalName"), cname, msg))
		}
		return errs
	}
	return nil
}

func validateSessionAffinity(spec *corev1.ServiceSpec, specPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	switch {
	case spec.SessionAffinity == "":
		errs = append(errs, field.Required(specPath.Child("sessionAffinity"), ""))
	case !contains(supportedAffinities, spec.SessionAffinity):
		errs = append(errs, field.NotSupported(specPath.Child("sessionAffinity"), spec.SessionAffinity, supportedAffinities))
	}
	cfgPath := specPath.Child("sessionAffinityConfig")
	switch spec.SessionAffinity {
	case corev1.ServiceAffinityClientIP:
		errs = append(errs, validateClientIPAffinityConfig(spec.SessionAffinityConfig, cfgPath)...)
	case corev1.ServiceAffinityNone:
		if spec.SessionAffinityConfig != nil {
			errs = append(errs, field.Forbidden(cfgPath,
				fmt.Sprintf("must not be set when session affinity is %s", corev1.ServiceAffinityNone)))
		}
	}
	return errs
}

func validateClientIPAffinityConfig(cfg *corev1.SessionAffinityConfig, fld *field.Path) field.ErrorList {
	detail := fmt.Sprintf("when session affinity type is %s", corev1.ServiceAffinityClientIP)
	switch {
	case cfg == nil:
		return field.ErrorList{field.Required(fld, detail)}
	case cfg.ClientIP == nil:
		return field.ErrorList{field.Required(fld.Child("clientIP"), detail)}
	case cfg.ClientIP.TimeoutSeconds == nil:
		return field.ErrorList{field.Required(fld.Child("clientIP", "timeoutSeconds"), detail)}
	}
	if t := *cfg.ClientIP.TimeoutSeconds; t <= 0 || t > maxClientIPAffinitySeconds {
		return field.ErrorList{field.Invalid(fld.Child("clientIP", "timeoutSeconds"), t,
			fmt.Sprintf("must be greater than 0 and less than %d", maxClientIPAffinitySeconds))}
	}
	return nil
}

// validateSourceRanges checks spec.loadBalancerSourceRanges or, when that is
// empty, the legacy annotation; both only for LoadBalancer Services. Values
// may be space-padded (a historical accident upstream keeps).
func validateSourceRanges(svc, old *corev1.Service) field.ErrorList {
	var errs field.ErrorList
	lbOnly := "may only be used when `type` is 'LoadBalancer'"
	isLB := svc.Spec.Type == corev1.ServiceTypeLoadBalancer
	if ranges := svc.Spec.LoadBalancerSourceRanges; len(ranges) > 0 {
		// Upstream's path really is capitalised.
		fld := field.NewPath("spec", "LoadBalancerSourceRanges")
		if !isLB {
			errs = append(errs, field.Forbidden(fld, lbOnly))
		}
		var oldRanges []string
		for _, v := range oldSpec(old).LoadBalancerSourceRanges {
			oldRanges = append(oldRanges, strings.TrimSpace(v))
		}
		for i, v := range ranges {
			errs = append(errs, validation.IsValidCIDRForLegacyField(fld.Index(i), strings.TrimSpace(v), strictIPs, oldRanges)...)
		}
		return errs
	}
	key := corev1.AnnotationLoadBalancerSourceRangesKey
	val, ok := svc.Annotations[key]
	if !ok {
		return nil
	}
	fld := field.NewPath("metadata", "annotations").Key(key)
	if !isLB {
		errs = append(errs, field.Forbidden(fld, lbOnly))
	}
	if old != nil && old.Annotations != nil && old.Annotations[key] == val {
		return errs // unchanged: not re-judged
	}
	if val = strings.TrimSpace(val); val != "" {
		for _, v := range strings.Split(val, ",") {
			errs = append(errs, validation.IsValidCIDRForLegacyField(fld, strings.TrimSpace(v), strictIPs, nil)...)
		}
	}
	return errs
}

// validateLoadBalancerClass: only for LoadBalancer, a qualified name, and
// (on update, LoadBalancer to LoadBalancer) unchangeable.
func validateLoadBalancerClass(old, svc *corev1.Service) field.ErrorList {
	var errs field.ErrorList
	fld := field.NewPath("spec", "loadBalancerClass")
	class := svc.Spec.LoadBalancerClass
	if old != nil && old.Spec.Type == corev1.ServiceTypeLoadBalancer &&
		svc.Spec.Type == corev1.ServiceTypeLoadBalancer && !sameLoadBalancerClass(old, svc) {
		errs = append(errs, field.Invalid(fld, class, "may not change once set"))
	}
	switch {
	case svc.Spec.Type == corev1.ServiceTypeLoadBalancer && class != nil:
		for _, msg := range validation.IsQualifiedName(*class) {
			errs = append(errs, field.Invalid(fld, *class, msg))
		}
	case svc.Spec.Type != corev1.ServiceTypeLoadBalancer && class != nil:
		errs = append(errs, field.Forbidden(fld, "may only be used when `type` is 'LoadBalancer'"))
	}
	return errs
}

func sameLoadBalancerClass(a, b *corev1.Service) bool {
	x, y := a.Spec.LoadBalancerClass, b.Spec.LoadBalancerClass
	if x == nil || y == nil {
		return x == nil && y == nil
	}
	return *x == *y
}

// validateExternalTrafficPolicy: set (to Cluster or Local) exactly for
// externally-accessible Services; healthCheckNodePort exactly for
// LoadBalancer Services with the Local policy.
func validateExternalTrafficPolicy(svc *corev1.Service) field.ErrorList {
	var errs field.ErrorList
	spec, specPath := &svc.Spec, field.NewPath("spec")
	etp := specPath.Child("externalTrafficPolicy")
	switch {
	case !externallyAccessible(svc):
		if spec.ExternalTrafficPolicy != "" {
			errs = append(errs, field.Invalid(etp, spec.ExternalTrafficPolicy,
				"may only be set for externally-accessible services"))
		}
	case spec.ExternalTrafficPolicy == "":
		errs = append(errs, field.Required(etp, ""))
	case !contains(supportedExternalTrafficPolicies, spec.ExternalTrafficPolicy):
		errs = append(errs, field.NotSupported(etp, spec.ExternalTrafficPolicy, supportedExternalTrafficPolicies))
	}
	hc := specPath.Child("healthCheckNodePort")
	switch {
	case !needsHealthCheck(svc):
		if spec.HealthCheckNodePort != 0 {
			errs = append(errs, field.Invalid(hc, spec.HealthCheckNodePort,
				"may only be set when `type` is 'LoadBalancer' and `externalTrafficPolicy` is 'Local'"))
		}
	case spec.HealthCheckNodePort == 0:
		errs = append(errs, field.Required(hc, ""))
	default:
		for _, msg := range validation.IsValidPortNum(int(spec.HealthCheckNodePort)) {
			errs = append(errs, field.Invalid(hc, spec.HealthCheckNodePort, msg))
		}
	}
	return errs
}

// validateInternalTrafficPolicy: required for the types it is defaulted for
// (other types may carry it, for compatibility with objects stored long ago).
func validateInternalTrafficPolicy(spec *corev1.ServiceSpec) field.ErrorList {
	fld := field.NewPath("spec", "internalTrafficPolicy")
	p := spec.InternalTrafficPolicy
	switch {
	case p == nil && usesInternalTrafficPolicy(spec.Type):
		return field.ErrorList{field.Required(fld, "")}
	case p != nil && !contains(supportedInternalTrafficPolicies, *p):
		return field.ErrorList{field.NotSupported(fld, *p, supportedInternalTrafficPolicies)}
	}
	return nil
}

func validateTrafficDistribution(spec *corev1.ServiceSpec) field.ErrorList {
	if d := spec.TrafficDistribution; d != nil && !contains(supportedTrafficDistributions, *d) {
		return field.ErrorList{field.NotSupported(field.NewPath("spec", "trafficDistribution"),
			*d, supportedTrafficDistributions)}
	}
	return nil
}

// isHeadless: clusterIPs is exactly ["None"].
func isHeadless(svc *corev1.Service) bool {
	return svc != nil && len(svc.Spec.ClusterIPs) == 1 && svc.Spec.ClusterIPs[0] == corev1.ClusterIPNone
}

// oldSpec returns old's spec, or an empty one on create.
func oldSpec(old *corev1.Service) *corev1.ServiceSpec {
	if old == nil {
		return &corev1.ServiceSpec{}
	}
	return &old.Spec
}

func contains[T comparable](list []T, v T) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

// validateExternalIPs: each external IP is an IP (ones already stored are
// not re-judged) and not unspecified, loopback or link-local.
func validateExternalIPs(ips, oldIPs []string, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, ip := range ips {
		p := fld.Index(i)
		if ipErrs := validation.IsValidIPForLegacyField(p, ip, strictIPs, oldIPs); len(ipErrs) != 0 {
			errs = append(errs, ipErrs...)
			continue
		}
		errs = append(errs, validateNonSpecialIP(ip, p)...)
	}
	return errs
}

// validateNonSpecialIP is upstream's ValidateEndpointIP (ValidateNonSpecialIP
// before 1.33): no unspecified, loopback, link-local or link-local multicast
// addresses.
func validateNonSpecialIP(value string, fld *field.Path) field.ErrorList {
	ip := netutils.ParseIPSloppy(value)
	if ip == nil {
		return field.ErrorList{field.Invalid(fld, value, "must be a valid IP address")}
	}
	var errs field.ErrorList
	if ip.IsUnspecified() {
		errs = append(errs, field.Invalid(fld, value, fmt.Sprintf("may not be unspecified (%v)", value)))
	}
	if ip.IsLoopback() {
		errs = append(errs, field.Invalid(fld, value, "may not be in the loopback range (127.0.0.0/8, ::1/128)"))
	}
	if ip.IsLinkLocalUnicast() {
		errs = append(errs, field.Invalid(fld, value, "may not be in the link-local range (169.254.0.0/16, fe80::/10)"))
	}
	if ip.IsLinkLocalMulticast() {
		errs = append(errs, field.Invalid(fld, value, "may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)"))
	}
	return errs
}
