package pod

import (
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// validatePodAnnotations checks the annotations with a meaning for pods
// as upstream's ValidatePodSpecificAnnotations (the long-removed
// tolerations annotation aside): the mirror pod marker, the deletion
// cost, the deprecated seccomp and AppArmor annotations.
func validatePodAnnotations(annotations map[string]string, spec *corev1.PodSpec, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	if v, ok := annotations[corev1.MirrorPodAnnotationKey]; ok && spec.NodeName == "" {
		errs = append(errs, field.Invalid(fld.Key(corev1.MirrorPodAnnotationKey), v, "must set spec.nodeName if mirror pod annotation is set"))
	}
	if v, ok := annotations[corev1.PodDeletionCost]; ok && !validDeletionCost(v) {
		errs = append(errs, field.Invalid(fld.Key(corev1.PodDeletionCost), v, "must be a 32bit integer"))
	}
	if p, ok := annotations[corev1.SeccompPodAnnotationKey]; ok {
		errs = append(errs, validateSeccompAnnotation(p, fld.Child(corev1.SeccompPodAnnotationKey))...)
	}
	for k, v := range annotations {
		if strings.HasPrefix(k, corev1.SeccompContainerAnnotationKeyPrefix) {
			errs = append(errs, validateSeccompAnnotation(v, fld.Child(k))...)
		}
		if !strings.HasPrefix(k, corev1.DeprecatedAppArmorBetaContainerAnnotationKeyPrefix) {
			continue
		}
		name := strings.TrimPrefix(k, corev1.DeprecatedAppArmorBetaContainerAnnotationKeyPrefix)
		if findContainer(spec, name) == nil {
			errs = append(errs, field.Invalid(fld.Key(k), name, "container not found"))
		}
		if v != "" && v != corev1.DeprecatedAppArmorBetaProfileRuntimeDefault && v != corev1.DeprecatedAppArmorBetaProfileNameUnconfined &&
			!strings.HasPrefix(v, corev1.DeprecatedAppArmorBetaProfileNamePrefix) {
			errs = append(errs, field.Invalid(fld.Key(k), v, "invalid AppArmor profile name: "+strconv.Quote(v)))
		}
	}
	return errs
}

// validDeletionCost: a 32-bit integer without a plus sign or leading zeros.
func validDeletionCost(v string) bool {
	if v == "" || !(v[0] == '-' || v == "0" || (v[0] >= '1' && v[0] <= '9')) {
		return false
	}
	_, err := strconv.ParseInt(v, 10, 32)
	return err == nil
}

func validateSeccompAnnotation(p string, fld *field.Path) field.ErrorList {
	switch {
	case p == corev1.SeccompProfileRuntimeDefault || p == corev1.DeprecatedSeccompProfileDockerDefault || p == corev1.SeccompProfileNameUnconfined:
		return nil
	case strings.HasPrefix(p, corev1.SeccompLocalhostProfileNamePrefix):
		return validateLocalDescendingPath(strings.TrimPrefix(p, corev1.SeccompLocalhostProfileNamePrefix), fld)
	}
	return field.ErrorList{field.Invalid(fld, p, "must be a valid seccomp profile")}
}

// visitContainers calls visit with every container (init, regular,
// ephemeral) and its path, as upstream's VisitContainersWithPath.
func visitContainers(spec *corev1.PodSpec, specPath *field.Path, visit func(c *corev1.Container, p *field.Path)) {
	for i := range spec.InitContainers {
		visit(&spec.InitContainers[i], specPath.Child("initContainers").Index(i))
	}
	for i := range spec.Containers {
		visit(&spec.Containers[i], specPath.Child("containers").Index(i))
	}
	for i := range spec.EphemeralContainers {
		visit((*corev1.Container)(&spec.EphemeralContainers[i].EphemeralContainerCommon), specPath.Child("ephemeralContainers").Index(i))
	}
}

func findContainer(spec *corev1.PodSpec, name string) *corev1.Container {
	var found *corev1.Container
	visitContainers(spec, field.NewPath("spec"), func(c *corev1.Container, _ *field.Path) {
		if found == nil && c.Name == name {
			found = c
		}
	})
	return found
}

// validateProfileAnnotationsMatchFields: where a deprecated seccomp or
// AppArmor annotation and the field both say something, they must agree
// (upstream's validateSeccompAnnotationsAndFields and
// validateAppArmorAnnotationsAndFieldsMatchOnCreate).
func validateProfileAnnotationsMatchFields(annotations map[string]string, spec *corev1.PodSpec, specPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	if sc := spec.SecurityContext; sc != nil && sc.SeccompProfile != nil {
		if a, ok := annotations[corev1.SeccompPodAnnotationKey]; ok {
			errs = append(errs, seccompMatch(a, sc.SeccompProfile, specPath.Child("securityContext", "seccompProfile"))...)
		}
	}
	visitContainers(spec, specPath, func(c *corev1.Container, p *field.Path) {
		if c.SecurityContext == nil || c.SecurityContext.SeccompProfile == nil {
			return
		}
		if a, ok := annotations[corev1.SeccompContainerAnnotationKeyPrefix+c.Name]; ok {
			errs = append(errs, seccompMatch(a, c.SecurityContext.SeccompProfile, p.Child("securityContext", "seccompProfile"))...)
		}
	})
	if spec.OS != nil && spec.OS.Name == corev1.Windows {
		return errs
	}
	var podProfile *corev1.AppArmorProfile
	if spec.SecurityContext != nil {
		podProfile = spec.SecurityContext.AppArmorProfile
	}
	visitContainers(spec, specPath, func(c *corev1.Container, p *field.Path) {
		profile := podProfile
		if c.SecurityContext != nil && c.SecurityContext.AppArmorProfile != nil {
			profile = c.SecurityContext.AppArmorProfile
		}
		a, ok := annotations[corev1.DeprecatedAppArmorBetaContainerAnnotationKeyPrefix+c.Name]
		if profile == nil || !ok {
			return
		}
		errs = append(errs, appArmorMatch(a, profile, p.Child("securityContext", "appArmorProfile"))...)
	})
	return errs
}

func seccompMatch(a string, sp *corev1.SeccompProfile, fld *field.Path) field.ErrorList {
	mismatch := field.ErrorList{field.Forbidden(fld.Child("type"), "seccomp type in annotation and field must match")}
	switch sp.Type {
	case corev1.SeccompProfileTypeUnconfined:
		if a != corev1.SeccompProfileNameUnconfined {
			return mismatch
		}
	case corev1.SeccompProfileTypeRuntimeDefault:
		if a != corev1.SeccompProfileRuntimeDefault && a != corev1.DeprecatedSeccompProfileDockerDefault {
			return mismatch
		}
	case corev1.SeccompProfileTypeLocalhost:
		if !strings.HasPrefix(a, corev1.SeccompLocalhostProfileNamePrefix) {
			return mismatch
		}
		if sp.LocalhostProfile == nil || strings.TrimPrefix(a, corev1.SeccompLocalhostProfileNamePrefix) != *sp.LocalhostProfile {
			return field.ErrorList{field.Forbidden(fld.Child("localhostProfile"), "seccomp profile in annotation and field must match")}
		}
	}
	return nil
}

func appArmorMatch(a string, ap *corev1.AppArmorProfile, fld *field.Path) field.ErrorList {
	mismatch := field.ErrorList{field.Forbidden(fld.Child("type"), "apparmor type in annotation and field must match")}
	switch ap.Type {
	case corev1.AppArmorProfileTypeUnconfined:
		if a != corev1.DeprecatedAppArmorBetaProfileNameUnconfined {
			return mismatch
		}
	case corev1.AppArmorProfileTypeRuntimeDefault:
		if a != corev1.DeprecatedAppArmorBetaProfileRuntimeDefault {
			return mismatch
		}
	case corev1.AppArmorProfileTypeLocalhost:
		if !strings.HasPrefix(a, corev1.DeprecatedAppArmorBetaProfileNamePrefix) {
			return mismatch
		}
		if ap.LocalhostProfile == nil || strings.TrimPrefix(a, corev1.DeprecatedAppArmorBetaProfileNamePrefix) != *ap.LocalhostProfile {
			return field.ErrorList{field.Forbidden(fld.Child("localhostProfile"), "apparmor profile in annotation and field must match")}
		}
	}
	return nil
}
