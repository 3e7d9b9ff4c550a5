package pod

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// integerResources are the native resources counted in whole units
// (upstream's core helper).
var integerResources = map[corev1.ResourceName]bool{
	corev1.ResourcePods: true, corev1.ResourceQuotas: true, corev1.ResourceServices: true,
	corev1.ResourceReplicationControllers: true, corev1.ResourceSecrets: true, corev1.ResourceConfigMaps: true,
	corev1.ResourcePersistentVolumeClaims: true, corev1.ResourceServicesNodePorts: true,
	corev1.ResourceServicesLoadBalancers: true,
}

// IsNativeResource: a resource name without a domain, or in
// kubernetes.io.
func IsNativeResource(name corev1.ResourceName) bool {
	return !strings.Contains(string(name), "/") || strings.Contains(string(name), corev1.ResourceDefaultNamespacePrefix)
}

// IsExtendedResourceName: a resource outside kubernetes.io whose quota
// name ("requests.<name>") is a qualified name.
func IsExtendedResourceName(name corev1.ResourceName) bool {
	if IsNativeResource(name) || strings.HasPrefix(string(name), corev1.DefaultResourceRequestsPrefix) {
		return false
	}
	return len(validation.IsQualifiedName(corev1.DefaultResourceRequestsPrefix+string(name))) == 0
}

// IsHugePageResourceName: hugepages-<size>.
func IsHugePageResourceName(name corev1.ResourceName) bool {
	return strings.HasPrefix(string(name), corev1.ResourceHugePagesPrefix)
}

// IsIntegerResourceName: a resource counted in whole units.
func IsIntegerResourceName(name corev1.ResourceName) bool {
	return integerResources[name] || IsExtendedResourceName(name)
}

// ValidateResourceQuantityValue: not negative, and whole for integer
// resources (upstream's ValidateResourceQuantityValue).
func ValidateResourceQuantityValue(name corev1.ResourceName, q resource.Quantity, fld *field.Path) field.ErrorList {
	errs := ValidateNonnegativeQuantity(q, fld)
	if IsIntegerResourceName(name) && q.MilliValue()%1000 != 0 {
		errs = append(errs, field.Invalid(fld, q, "must be an integer"))
	}
	return errs
}

// ValidateNonnegativeQuantity reports a negative quantity.
func ValidateNonnegativeQuantity(q resource.Quantity, fld *field.Path) field.ErrorList {
	if q.Cmp(resource.Quantity{}) < 0 {
		return field.ErrorList{field.Invalid(fld, q.String(), apivalidation.IsNegativeErrorMsg)}
	}
	return nil
}

// standardContainerResources are the native resources a container may
// request (hugepages-* besides).
var standardContainerResources = map[corev1.ResourceName]bool{
	corev1.ResourceCPU: true, corev1.ResourceMemory: true, corev1.ResourceEphemeralStorage: true,
}

// validateResourceName: a qualified name, a standard one when it has no
// domain (upstream's validateResourceName).
func validateResourceName(name corev1.ResourceName, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, msg := range validation.IsQualifiedName(string(name)) {
		errs = append(errs, field.Invalid(fld, name, msg))
	}
	if len(errs) == 0 && !strings.Contains(string(name), "/") && !isStandardResourceName(name) {
		errs = append(errs, field.Invalid(fld, name, "must be a standard resource type or fully qualified"))
	}
	return errs
}

// validateContainerResourceName: a resource name that is, without a
// domain, a container resource, with one an extended resource (upstream's
// validateContainerResourceName).
func validateContainerResourceName(name corev1.ResourceName, fld *field.Path) field.ErrorList {
	errs := validateResourceName(name, fld)
	unprefixed := !strings.Contains(string(name), "/")
	switch {
	case unprefixed && !standardContainerResources[name] && !IsHugePageResourceName(name):
		errs = append(errs, field.Invalid(fld, name, "must be a standard resource for containers"))
	case !unprefixed && !IsNativeResource(name) && !IsExtendedResourceName(name):
		errs = append(errs, field.Invalid(fld, name, "doesn't follow extended resource name standard"))
	}
	return errs
}

// standardResources are upstream's standard resource names (quota ones
// included).
var standardResources = map[corev1.ResourceName]bool{
	corev1.ResourceCPU: true, corev1.ResourceMemory: true, corev1.ResourceEphemeralStorage: true,
	corev1.ResourceRequestsCPU: true, corev1.ResourceRequestsMemory: true, corev1.ResourceRequestsEphemeralStorage: true,
	corev1.ResourceLimitsCPU: true, corev1.ResourceLimitsMemory: true, corev1.ResourceLimitsEphemeralStorage: true,
	corev1.ResourcePods: true, corev1.ResourceQuotas: true, corev1.ResourceServices: true,
	corev1.ResourceReplicationControllers: true, corev1.ResourceSecrets: true,
	corev1.ResourcePersistentVolumeClaims: true, corev1.ResourceConfigMaps: true, corev1.ResourceStorage: true,
	corev1.ResourceRequestsStorage: true, corev1.ResourceServicesNodePorts: true, corev1.ResourceServicesLoadBalancers: true,
}

func isStandardResourceName(name corev1.ResourceName) bool {
	return standardResources[name] || strings.HasPrefix(string(name), corev1.ResourceHugePagesPrefix) ||
		strings.HasPrefix(string(name), corev1.ResourceRequestsHugePagesPrefix)
}

// isOvercommitAllowed: native resources but hugepages may be requested
// below their limit.
func isOvercommitAllowed(name corev1.ResourceName) bool {
	return IsNativeResource(name) && !IsHugePageResourceName(name)
}

// validateResourceRequirements checks a container's requests and limits
// as upstream's validateResourceRequirements.
func validateResourceRequirements(r *corev1.ResourceRequirements, nameFn func(corev1.ResourceName, *field.Path) field.ErrorList, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	limPath, reqPath := fld.Child("limits"), fld.Child("requests")
	cpuOrMemory, hugePages := false, false
	for name, q := range r.Limits {
		p := limPath.Key(string(name))
		errs = append(errs, nameFn(name, p)...)
		errs = append(errs, ValidateResourceQuantityValue(name, q, p)...)
		if IsHugePageResourceName(name) {
			hugePages = true
			errs = append(errs, validateHugePageValue(name, q, p)...)
		}
		cpuOrMemory = cpuOrMemory || isQOSResource(name)
	}
	for name, q := range r.Requests {
		p := reqPath.Key(string(name))
		errs = append(errs, nameFn(name, p)...)
		errs = append(errs, ValidateResourceQuantityValue(name, q, p)...)
		if lim, ok := r.Limits[name]; ok {
			if q.Cmp(lim) != 0 && !isOvercommitAllowed(name) {
				errs = append(errs, field.Invalid(reqPath, q.String(), fmt.Sprintf("must be equal to %s limit of %s", name, lim.String())))
			} else if q.Cmp(lim) > 0 {
				errs = append(errs, field.Invalid(reqPath, q.String(), fmt.Sprintf("must be less than or equal to %s limit of %s", name, lim.String())))
			}
		} else if !isOvercommitAllowed(name) {
			errs = append(errs, field.Required(limPath, "Limit must be set for non overcommitable resources"))
		}
		if IsHugePageResourceName(name) {
			hugePages = true
			errs = append(errs, validateHugePageValue(name, q, p)...)
		}
		cpuOrMemory = cpuOrMemory || isQOSResource(name)
	}
	if !cpuOrMemory && hugePages {
		errs = append(errs, field.Forbidden(fld, "HugePages require cpu or memory"))
	}
	return errs
}

// validateHugePageValue: a whole multiple of the page size.
func validateHugePageValue(name corev1.ResourceName, q resource.Quantity, fld *field.Path) field.ErrorList {
	size, err := resource.ParseQuantity(strings.TrimPrefix(string(name), corev1.ResourceHugePagesPrefix))
	if err != nil || size.Sign() <= 0 || size.MilliValue()%1000 != 0 || q.Value()%size.Value() != 0 {
		return field.ErrorList{field.Invalid(fld, q.String(), fmt.Sprintf("%s is not positive integer multiple of %s", q.String(), name))}
	}
	return nil
}

// ValidateContainerResourceRequirements checks requests and limits with
// the container resource names (upstream's
// ValidateContainerResourceRequirements; RuntimeClass overhead uses it).
func ValidateContainerResourceRequirements(r *corev1.ResourceRequirements, fld *field.Path) field.ErrorList {
	return validateResourceRequirements(r, validateContainerResourceName, fld)
}

// ValidateContainerResourceName is upstream's core/v1
// ValidateContainerResourceName (the HPA's container resource metrics).
func ValidateContainerResourceName(name corev1.ResourceName, fld *field.Path) field.ErrorList {
	return validateContainerResourceName(name, fld)
}
