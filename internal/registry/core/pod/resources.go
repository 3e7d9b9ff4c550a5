package pod

import (
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
