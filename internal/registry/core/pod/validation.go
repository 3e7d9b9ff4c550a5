package pod

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// validatePod checks a Pod beyond its metadata as upstream's
// validatePodMetadataAndSpec: the spec, then what only Pods (not
// templates) must obey.
func validatePod(p *corev1.Pod) field.ErrorList {
	spec := field.NewPath("spec")
	errs := validatePodAnnotations(p.Annotations, &p.Spec, field.NewPath("metadata", "annotations"))
	errs = append(errs, ValidatePodSpec(&p.Spec, spec, true)...)
	if p.Spec.ServiceAccountName == "" {
		for vi, v := range p.Spec.Volumes {
			if v.Projected == nil {
				continue
			}
			for si, s := range v.Projected.Sources {
				if s.ServiceAccountToken != nil {
					errs = append(errs, field.Forbidden(spec.Child("volumes").Index(vi).Child("projected", "sources").Index(si).Child("serviceAccountToken"),
						"must not be specified when serviceAccountName is not set"))
				}
			}
		}
	}
	errs = append(errs, validateContainersOnlyForPod(p.Spec.Containers, spec.Child("containers"))...)
	return append(errs, validateContainersOnlyForPod(p.Spec.InitContainers, spec.Child("initContainers"))...)
}

// validatePodCreate adds upstream's ValidatePodCreate rules: no ephemeral
// containers yet, no node while scheduling gates remain.
func validatePodCreate(p *corev1.Pod) field.ErrorList {
	errs := validatePod(p)
	spec := field.NewPath("spec")
	if len(p.Spec.EphemeralContainers) > 0 {
		errs = append(errs, field.Forbidden(spec.Child("ephemeralContainers"), "cannot be set on create"))
	}
	if p.Spec.NodeName != "" && len(p.Spec.SchedulingGates) != 0 {
		errs = append(errs, field.Forbidden(spec.Child("nodeName"), "cannot be set until all schedulingGates have been cleared"))
	}
	return append(errs, validateProfileAnnotationsMatchFields(p.Annotations, &p.Spec, spec)...)
}
