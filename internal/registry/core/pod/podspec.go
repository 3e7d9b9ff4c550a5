package pod

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/svcplane/svcplane/internal/registry/resource"
)

// Upstream's limits of a pod's DNS config.
const (
	maxDNSNameservers     = 3
	maxDNSSearchPaths     = 32
	maxDNSSearchListChars = 2048
)

// ValidatePodSpec checks a pod spec as upstream's ValidatePodSpec, with
// the options kube-apiserver 1.36 uses for a new object. isPod: the spec
// is a Pod's (not a template's), where hostNetwork's host ports must be
// filled in.
func ValidatePodSpec(spec *corev1.PodSpec, fld *field.Path, isPod bool) field.ErrorList {
	var errs field.ErrorList
	if spec.TerminationGracePeriodSeconds == nil {
		errs = append(errs, field.Required(fld.Child("terminationGracePeriodSeconds"), ""))
	}
	hostUsers := spec.HostUsers == nil || *spec.HostUsers
	volumes, verrs := validateVolumes(spec.Volumes, fld.Child("volumes"))
	errs = append(errs, verrs...)
	c := containerContext{volumes: volumes, grace: spec.TerminationGracePeriodSeconds, hostUsers: hostUsers}
	errs = append(errs, validateContainers(spec.Containers, c, fld.Child("containers"))...)
	errs = append(errs, validateInitContainers(spec.InitContainers, spec.Containers, c, fld.Child("initContainers"))...)
	errs = append(errs, validatePodResources(spec, fld)...)
	errs = append(errs, validateHostNetworkPorts(spec, isPod, fld)...)
	errs = append(errs, validateEnum(spec.RestartPolicy, fld.Child("restartPolicy"),
		[]corev1.RestartPolicy{corev1.RestartPolicyAlways, corev1.RestartPolicyOnFailure, corev1.RestartPolicyNever})...)
	errs = append(errs, validateEnum(spec.DNSPolicy, fld.Child("dnsPolicy"),
		[]corev1.DNSPolicy{corev1.DNSClusterFirstWithHostNet, corev1.DNSClusterFirst, corev1.DNSDefault, corev1.DNSNone})...)
	errs = append(errs, metav1validation.ValidateLabels(spec.NodeSelector, fld.Child("nodeSelector"))...)
	errs = append(errs, validatePodSecurityContext(spec.SecurityContext, spec, fld.Child("securityContext"))...)
	for i, s := range spec.ImagePullSecrets {
		if !reflect.DeepEqual(corev1.LocalObjectReference{Name: s.Name}, s) {
			errs = append(errs, field.Invalid(fld.Child("imagePullSecrets").Index(i), s, "only name may be set"))
		}
	}
	errs = append(errs, validateAffinity(spec.Affinity, fld.Child("affinity"))...)
	errs = append(errs, validateDNSConfig(spec.DNSConfig, spec.DNSPolicy, fld.Child("dnsConfig"))...)
	for i, g := range spec.ReadinessGates {
		errs = append(errs, validateQualifiedName(string(g.ConditionType), fld.Child("readinessGates").Index(i).Child("conditionType"))...)
	}
	errs = append(errs, validateSchedulingGates(spec.SchedulingGates, fld.Child("schedulingGates"))...)
	errs = append(errs, validateTopologySpread(spec.TopologySpreadConstraints, fld.Child("topologySpreadConstraints"))...)
	errs = append(errs, validateNames(spec, fld)...)
	if d := spec.ActiveDeadlineSeconds; d != nil && (*d < 1 || *d > math.MaxInt32) {
		errs = append(errs, field.Invalid(fld.Child("activeDeadlineSeconds"), *d, validation.InclusiveRangeError(1, math.MaxInt32)))
	}
	if len(spec.Tolerations) > 0 {
		errs = append(errs, validateTolerations(spec.Tolerations, fld.Child("tolerations"))...)
	}
	for i, a := range spec.HostAliases {
		p := fld.Child("hostAliases").Index(i)
		errs = append(errs, validation.IsValidIPForLegacyField(p.Child("ip"), a.IP, resource.StrictIPCIDRValidation, nil)...)
		for j, h := range a.Hostnames {
			errs = append(errs, validateDNS1123Subdomain(h, p.Child("hostnames").Index(j))...)
		}
	}
	if p := spec.PreemptionPolicy; p != nil {
		errs = append(errs, validateEnum(*p, fld.Child("preemptionPolicy"),
			[]corev1.PreemptionPolicy{corev1.PreemptLowerPriority, corev1.PreemptNever})...)
	}
	if spec.Overhead != nil {
		errs = append(errs, validateResourceRequirements(&corev1.ResourceRequirements{Limits: spec.Overhead}, validateContainerResourceName, fld.Child("overhead"))...)
	}
	return append(errs, validateOS(spec.OS, fld.Child("os"))...)
}

// validateEnum: one of valid; "" is Required.
func validateEnum[T ~string](v T, fld *field.Path, valid []T) field.ErrorList {
	switch {
	case slices.Contains(valid, v):
		return nil
	case v == "":
		return field.ErrorList{field.Required(fld, "")}
	}
	return field.ErrorList{field.NotSupported(fld, v, valid)}
}

// validateNames checks the spec's references by name and its own names.
func validateNames(spec *corev1.PodSpec, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	subdomain := func(name, v string) {
		if v != "" {
			for _, msg := range apivalidation.NameIsDNSSubdomain(v, false) {
				errs = append(errs, field.Invalid(fld.Child(name), v, msg))
			}
		}
	}
	subdomain("serviceAccountName", spec.ServiceAccountName)
	subdomain("nodeName", spec.NodeName)
	if spec.Hostname != "" {
		errs = append(errs, validateDNS1123Label(spec.Hostname, fld.Child("hostname"))...)
	}
	if spec.Subdomain != "" {
		errs = append(errs, validateDNS1123Label(spec.Subdomain, fld.Child("subdomain"))...)
	}
	subdomain("priorityClassName", spec.PriorityClassName)
	if spec.RuntimeClassName != nil {
		for _, msg := range apivalidation.NameIsDNSSubdomain(*spec.RuntimeClassName, false) {
			errs = append(errs, field.Invalid(fld.Child("runtimeClassName"), *spec.RuntimeClassName, msg))
		}
	}
	if h := spec.HostnameOverride; h != nil {
		p := fld.Child("hostnameOverride")
		if spec.SetHostnameAsFQDN != nil && *spec.SetHostnameAsFQDN {
			errs = append(errs, field.Forbidden(p, "may not be specified when setHostnameAsFQDN is true"))
		}
		if spec.HostNetwork {
			errs = append(errs, field.Forbidden(p, "may not be specified when hostNetwork is true"))
		}
		if len(*h) > 64 {
			errs = append(errs, field.TooLong(p, "", 64))
		}
		errs = append(errs, validateDNS1123Subdomain(*h, p)...)
	}
	return errs
}

func validateDNS1123Label(v string, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, msg := range validation.IsDNS1123Label(v) {
		errs = append(errs, field.Invalid(fld, v, msg))
	}
	return errs
}

func validateDNS1123Subdomain(v string, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, msg := range validation.IsDNS1123Subdomain(v) {
		errs = append(errs, field.Invalid(fld, v, msg))
	}
	return errs
}

// validateHostNetworkPorts: under hostNetwork a pod's host port is its
// container port (a template may leave it 0, to be defaulted).
func validateHostNetworkPorts(spec *corev1.PodSpec, isPod bool, fld *field.Path) field.ErrorList {
	if !spec.HostNetwork {
		return nil
	}
	var errs field.ErrorList
	for i, c := range spec.Containers {
		for j, p := range c.Ports {
			if (isPod || p.HostPort != 0) && p.HostPort != p.ContainerPort {
				errs = append(errs, field.Invalid(fld.Child("containers").Index(i).Child("ports").Index(j).Child("hostPort"),
					p.HostPort, "must match `containerPort` when `hostNetwork` is true"))
			}
		}
	}
	return errs
}

func validateDNSConfig(c *corev1.PodDNSConfig, policy corev1.DNSPolicy, fld *field.Path) field.ErrorList {
	if policy == corev1.DNSNone {
		if c == nil {
			return field.ErrorList{field.Required(fld, fmt.Sprintf("must provide `dnsConfig` when `dnsPolicy` is %s", corev1.DNSNone))}
		}
		if len(c.Nameservers) == 0 {
			return field.ErrorList{field.Required(fld.Child("nameservers"), fmt.Sprintf("must provide at least one DNS nameserver when `dnsPolicy` is %s", corev1.DNSNone))}
		}
	}
	if c == nil {
		return nil
	}
	var errs field.ErrorList
	if len(c.Nameservers) > maxDNSNameservers {
		errs = append(errs, field.Invalid(fld.Child("nameservers"), c.Nameservers, fmt.Sprintf("must not have more than %v nameservers", maxDNSNameservers)))
	}
	for i, ns := range c.Nameservers {
		errs = append(errs, validation.IsValidIPForLegacyField(fld.Child("nameservers").Index(i), ns, resource.StrictIPCIDRValidation, nil)...)
	}
	if len(c.Searches) > maxDNSSearchPaths {
		errs = append(errs, field.Invalid(fld.Child("searches"), c.Searches, fmt.Sprintf("must not have more than %v search paths", maxDNSSearchPaths)))
	}
	if len(strings.Join(c.Searches, " ")) > maxDNSSearchListChars {
		errs = append(errs, field.Invalid(fld.Child("searches"), c.Searches, fmt.Sprintf("must not have more than %v characters (including spaces) in the search list", maxDNSSearchListChars)))
	}
	for i, s := range c.Searches {
		if s == "." {
			continue
		}
		s = strings.TrimSuffix(s, ".")
		for _, msg := range validation.IsDNS1123SubdomainWithUnderscore(s) {
			errs = append(errs, field.Invalid(fld.Child("searches").Index(i), s, msg))
		}
	}
	for i, o := range c.Options {
		if o.Name == "" {
			errs = append(errs, field.Required(fld.Child("options").Index(i), "must not be empty"))
		}
	}
	return errs
}

func validateSchedulingGates(gates []corev1.PodSchedulingGate, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	seen := map[string]bool{}
	for i, g := range gates {
		errs = append(errs, validateQualifiedName(g.Name, fld.Index(i))...)
		if seen[g.Name] {
			errs = append(errs, field.Duplicate(fld.Index(i), g.Name))
		}
		seen[g.Name] = true
	}
	return errs
}

func validateOS(os *corev1.PodOS, fld *field.Path) field.ErrorList {
	if os == nil {
		return nil
	}
	if os.Name == "" {
		return field.ErrorList{field.Required(fld.Child("name"), "")}
	}
	valid := []corev1.OSName{corev1.Linux, corev1.Windows}
	if !slices.Contains(valid, os.Name) {
		return field.ErrorList{field.NotSupported(fld, os.Name, valid)}
	}
	return nil
}

// ValidateProtocol checks a port protocol (TCP, UDP or SCTP).
func ValidateProtocol(proto corev1.Protocol, fld *field.Path) field.ErrorList {
	switch proto {
	case corev1.ProtocolTCP, corev1.ProtocolUDP, corev1.ProtocolSCTP:
		return nil
	case "":
		return field.ErrorList{field.Required(fld, "")}
	}
	return field.ErrorList{field.NotSupported(fld, proto,
		[]corev1.Protocol{corev1.ProtocolSCTP, corev1.ProtocolTCP, corev1.ProtocolUDP})}
}

// ValidatePodTemplateSpec checks a workload's pod template as upstream's
// ValidatePodTemplateSpec. The labels and annotations are reported at
// <fld>.labels and <fld>.annotations (not <fld>.metadata.…), as upstream.
func ValidatePodTemplateSpec(t *corev1.PodTemplateSpec, fld *field.Path) field.ErrorList {
	errs := metav1validation.ValidateLabels(t.Labels, fld.Child("labels"))
	errs = append(errs, apivalidation.ValidateAnnotations(t.Annotations, fld.Child("annotations"))...)
	errs = append(errs, validatePodAnnotations(t.Annotations, &t.Spec, fld.Child("annotations"))...)
	errs = append(errs, ValidatePodSpec(&t.Spec, fld.Child("spec"), false)...)
	errs = append(errs, validateProfileAnnotationsMatchFields(t.Annotations, &t.Spec, fld.Child("spec"))...)
	if len(t.Spec.EphemeralContainers) > 0 {
		errs = append(errs, field.Forbidden(fld.Child("spec", "ephemeralContainers"), "ephemeral containers not allowed in pod template"))
	}
	return errs
}
