package pod

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation/field"
	resourcehelper "k8s.io/component-helpers/resource"
)

// Pod-level resources (spec.resources, the PodLevelResources feature, on
// in 1.36): upstream's defaults and checks, on component-helpers'
// aggregation of the containers' requests and limits.

// defaultPodLevelResources fills pod-level hugepage limits and requests
// from the containers and the pod-level limits, as upstream's
// defaultHugePagePodLimits and defaultPodRequests.
func defaultPodLevelResources(p *corev1.Pod) {
	r := p.Spec.Resources
	if r == nil || (len(r.Limits) == 0 && len(r.Requests) == 0) {
		return
	}
	limits := r.Limits
	if limits == nil {
		limits = corev1.ResourceList{}
	}
	for name, q := range resourcehelper.AggregateContainerLimits(p, resourcehelper.PodResourcesOptions{}) {
		if !resourcehelper.IsSupportedPodLevelResource(name) || !IsHugePageResourceName(name) {
			continue
		}
		if _, ok := r.Requests[name]; ok {
			continue
		}
		if _, ok := limits[name]; !ok {
			limits[name] = q.DeepCopy()
		}
	}
	if len(limits) > 0 {
		r.Limits = limits
	}
	if len(r.Limits) == 0 {
		return
	}
	requests := r.Requests
	if requests == nil {
		requests = corev1.ResourceList{}
	}
	for name, q := range resourcehelper.AggregateContainerRequests(p, resourcehelper.PodResourcesOptions{}) {
		if _, ok := requests[name]; !ok && resourcehelper.IsSupportedPodLevelResource(name) && isOvercommitAllowed(name) {
			requests[name] = q.DeepCopy()
		}
	}
	for name, q := range r.Limits {
		if _, ok := requests[name]; !ok && resourcehelper.IsSupportedPodLevelResource(name) {
			requests[name] = q.DeepCopy()
		}
	}
	if len(requests) > 0 {
		r.Requests = requests
	}
}

// validatePodLevelResourceName: a resource name pod-level resources
// support (cpu, memory, hugepages-*).
func validatePodLevelResourceName(name corev1.ResourceName, fld *field.Path) field.ErrorList {
	if errs := validateResourceName(name, fld); len(errs) != 0 {
		return errs
	}
	if !resourcehelper.IsSupportedPodLevelResource(name) {
		return field.ErrorList{field.NotSupported(fld, name, sets.List(resourcehelper.SupportedPodLevelResources()))}
	}
	return nil
}

// validatePodResources checks spec.resources as upstream's
// validatePodResources: names, quantities, requests within limits, and
// consistency with the containers'.
func validatePodResources(spec *corev1.PodSpec, fld *field.Path) field.ErrorList {
	r := spec.Resources
	if r == nil {
		return nil
	}
	p := fld.Child("resources")
	if spec.OS != nil && spec.OS.Name == corev1.Windows {
		return field.ErrorList{field.Forbidden(p, "may not be set for a windows pod")}
	}
	var errs field.ErrorList
	if r.Claims != nil {
		errs = append(errs, field.Forbidden(p.Child("claims"), "claims may not be set for Resources at pod-level"))
	}
	errs = append(errs, validateResourceRequirements(r, validatePodLevelResourceName, p)...)
	pod := &corev1.Pod{Spec: *spec}
	for name, q := range resourcehelper.AggregateContainerRequests(pod, resourcehelper.PodResourcesOptions{}) {
		if own, ok := r.Requests[name]; ok && q.Cmp(own) > 0 {
			errs = append(errs, field.Invalid(p.Child("requests").Key(string(name)), own.String(),
				fmt.Sprintf("must be greater than or equal to aggregate container requests of %s", q.String())))
		}
	}
	for name, q := range resourcehelper.AggregateContainerLimits(pod, resourcehelper.PodResourcesOptions{}) {
		if !IsHugePageResourceName(name) {
			continue
		}
		if own, ok := r.Limits[name]; ok && q.Cmp(own) > 0 {
			errs = append(errs, field.Invalid(p.Child("limits").Key(string(name)), own.String(),
				fmt.Sprintf("must be greater than or equal to aggregate container limits of %s", q.String())))
		}
	}
	for i, c := range spec.Containers {
		for name, q := range c.Resources.Limits {
			if own, ok := r.Limits[name]; ok && q.Cmp(own) > 0 {
				errs = append(errs, field.Invalid(p.Child("containers").Index(i).Key(string(name)).Child("limits"), q.String(),
					fmt.Sprintf("must be less than or equal to pod limits of %s", own.String())))
			}
		}
	}
	return errs
}
