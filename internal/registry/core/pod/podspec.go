package pod

import (
	"math"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// ValidatePodSpec checks the parts of a pod spec users get wrong most, with
// upstream's field paths and messages.
func ValidatePodSpec(spec *corev1.PodSpec, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(spec.Containers) == 0 {
		errs = append(errs, field.Required(fld.Child("containers"), ""))
	}
	volumes, verrs := validateVolumeNames(spec.Volumes, fld.Child("volumes"))
	errs = append(errs, verrs...)
	names := sets.New[string]()
	errs = append(errs, validateContainers(spec.InitContainers, names, volumes, fld.Child("initContainers"))...)
	errs = append(errs, validateContainers(spec.Containers, names, volumes, fld.Child("containers"))...)
	errs = append(errs, validateTolerations(spec.Tolerations, fld.Child("tolerations"))...)
	switch spec.RestartPolicy {
	case corev1.RestartPolicyAlways, corev1.RestartPolicyOnFailure, corev1.RestartPolicyNever:
	case "":
		errs = append(errs, field.Required(fld.Child("restartPolicy"), ""))
	default:
		errs = append(errs, field.NotSupported(fld.Child("restartPolicy"), spec.RestartPolicy,
			[]corev1.RestartPolicy{corev1.RestartPolicyAlways, corev1.RestartPolicyOnFailure, corev1.RestartPolicyNever}))
	}
	switch spec.DNSPolicy {
	case corev1.DNSClusterFirst, corev1.DNSClusterFirstWithHostNet, corev1.DNSDefault, corev1.DNSNone, "":
	default:
		errs = append(errs, field.NotSupported(fld.Child("dnsPolicy"), spec.DNSPolicy,
			[]corev1.DNSPolicy{corev1.DNSClusterFirstWithHostNet, corev1.DNSClusterFirst, corev1.DNSDefault, corev1.DNSNone}))
	}
	if g := spec.TerminationGracePeriodSeconds; g != nil && *g < 0 {
		errs = append(errs, field.Invalid(fld.Child("terminationGracePeriodSeconds"), *g, "must be >= 0"))
	}
	if d := spec.ActiveDeadlineSeconds; d != nil && (*d < 1 || *d > math.MaxInt32) {
		errs = append(errs, field.Invalid(fld.Child("activeDeadlineSeconds"), *d, validation.InclusiveRangeError(1, math.MaxInt32)))
	}
	if spec.NodeName != "" {
		for _, msg := range apivalidation.NameIsDNSSubdomain(spec.NodeName, false) {
			errs = append(errs, field.Invalid(fld.Child("nodeName"), spec.NodeName, msg))
		}
	}
	return errs
}

func validateContainers(cs []corev1.Container, names, volumes sets.Set[string], fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, c := range cs {
		p := fld.Index(i)
		switch {
		case c.Name == "":
			errs = append(errs, field.Required(p.Child("name"), ""))
		case names.Has(c.Name):
			errs = append(errs, field.Duplicate(p.Child("name"), c.Name))
		default:
			for _, msg := range validation.IsDNS1123Label(c.Name) {
				errs = append(errs, field.Invalid(p.Child("name"), c.Name, msg))
			}
		}
		names.Insert(c.Name)
		if strings.TrimSpace(c.Image) == "" {
			errs = append(errs, field.Required(p.Child("image"), ""))
		} else if c.Image != strings.TrimSpace(c.Image) {
			errs = append(errs, field.Invalid(p.Child("image"), c.Image, "must not have leading or trailing whitespace"))
		}
		errs = append(errs, validateContainerPorts(c.Ports, p.Child("ports"))...)
		errs = append(errs, validateVolumeMounts(c.VolumeMounts, volumes, p.Child("volumeMounts"))...)
		errs = append(errs, validateRequestsWithinLimits(c.Resources, p.Child("resources"))...)
		for _, pr := range []struct {
			name  string
			probe *corev1.Probe
		}{{"livenessProbe", c.LivenessProbe}, {"readinessProbe", c.ReadinessProbe}, {"startupProbe", c.StartupProbe}} {
			errs = append(errs, validateProbe(pr.probe, p.Child(pr.name))...)
		}
	}
	return errs
}

func validateContainerPorts(ports []corev1.ContainerPort, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	names := sets.New[string]()
	for i, port := range ports {
		p := fld.Index(i)
		if port.Name != "" {
			for _, msg := range validation.IsValidPortName(port.Name) {
				errs = append(errs, field.Invalid(p.Child("name"), port.Name, msg))
			}
			if names.Has(port.Name) {
				errs = append(errs, field.Duplicate(p.Child("name"), port.Name))
			}
			names.Insert(port.Name)
		}
		for _, msg := range validation.IsValidPortNum(int(port.ContainerPort)) {
			errs = append(errs, field.Invalid(p.Child("containerPort"), port.ContainerPort, msg))
		}
		if port.HostPort != 0 {
			for _, msg := range validation.IsValidPortNum(int(port.HostPort)) {
				errs = append(errs, field.Invalid(p.Child("hostPort"), port.HostPort, msg))
			}
		}
		errs = append(errs, ValidateProtocol(port.Protocol, p.Child("protocol"))...)
	}
	return errs
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

// ValidatePodTemplateSpec checks a workload's pod template. The labels and
// annotations are reported at <fld>.labels and <fld>.annotations (not
// <fld>.metadata.…), as upstream's ValidatePodTemplateSpec does.
func ValidatePodTemplateSpec(t *corev1.PodTemplateSpec, fld *field.Path) field.ErrorList {
	errs := metav1validation.ValidateLabels(t.Labels, fld.Child("labels"))
	errs = append(errs, apivalidation.ValidateAnnotations(t.Annotations, fld.Child("annotations"))...)
	return append(errs, ValidatePodSpec(&t.Spec, fld.Child("spec"))...)
}
