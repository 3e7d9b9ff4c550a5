package pod

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/component-helpers/node/util/sysctl"

	"github.com/svcplane/svcplane/internal/registry/resource"
)

const sysctlMaxLength = 253

var sysctlName = regexp.MustCompile(`^([a-z0-9]([-_a-z0-9]*[a-z0-9])?[\./])*[a-z0-9]([-_a-z0-9]*[a-z0-9])?$`)

// validatePodSecurityContext checks the pod's security context as
// upstream's validatePodSpecSecurityContext (Windows options aside).
func validatePodSecurityContext(sc *corev1.PodSecurityContext, spec *corev1.PodSpec, fld *field.Path) field.ErrorList {
	if sc == nil {
		return nil
	}
	var errs field.ErrorList
	id := func(v *int64, name string, check func(int64) []string) {
		if v != nil {
			for _, msg := range check(*v) {
				errs = append(errs, field.Invalid(fld.Child(name), *v, msg))
			}
		}
	}
	id(sc.FSGroup, "fsGroup", validation.IsValidGroupID)
	id(sc.RunAsUser, "runAsUser", validation.IsValidUserID)
	id(sc.RunAsGroup, "runAsGroup", validation.IsValidGroupID)
	for i, g := range sc.SupplementalGroups {
		for _, msg := range validation.IsValidGroupID(g) {
			errs = append(errs, field.Invalid(fld.Child("supplementalGroups").Index(i), g, msg))
		}
	}
	if spec.ShareProcessNamespace != nil && spec.HostPID && *spec.ShareProcessNamespace {
		errs = append(errs, field.Invalid(fld.Child("shareProcessNamespace"), *spec.ShareProcessNamespace, "ShareProcessNamespace and HostPID cannot both be enabled"))
	}
	errs = append(errs, validateSysctls(sc.Sysctls, spec, fld.Child("sysctls"))...)
	if p := sc.FSGroupChangePolicy; p != nil {
		valid := []corev1.PodFSGroupChangePolicy{corev1.FSGroupChangeAlways, corev1.FSGroupChangeOnRootMismatch}
		if !slices.Contains(valid, *p) {
			errs = append(errs, field.NotSupported(fld.Child("fsGroupChangePolicy"), p, valid))
		}
	}
	errs = append(errs, validateSeccompProfile(sc.SeccompProfile, fld.Child("seccompProfile"))...)
	errs = append(errs, validateAppArmorProfile(sc.AppArmorProfile, fld.Child("appArmorProfile"))...)
	if p := sc.SupplementalGroupsPolicy; p != nil {
		valid := []corev1.SupplementalGroupsPolicy{corev1.SupplementalGroupsPolicyMerge, corev1.SupplementalGroupsPolicyStrict}
		if !slices.Contains(valid, *p) {
			errs = append(errs, field.NotSupported(fld.Child("supplementalGroupsPolicy"), p, valid))
		}
	}
	if p := sc.SELinuxChangePolicy; p != nil {
		valid := []corev1.PodSELinuxChangePolicy{corev1.SELinuxChangePolicyMountOption, corev1.SELinuxChangePolicyRecursive}
		if !slices.Contains(valid, *p) {
			errs = append(errs, field.NotSupported(fld.Child("seLinuxChangePolicy"), *p, valid))
		}
	}
	return errs
}

func validateSysctls(sysctls []corev1.Sysctl, spec *corev1.PodSpec, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	names := map[string]bool{}
	for i, s := range sysctls {
		p := fld.Index(i).Child("name")
		switch {
		case s.Name == "":
			errs = append(errs, field.Required(p, ""))
		case len(s.Name) > sysctlMaxLength || !sysctlName.MatchString(s.Name):
			errs = append(errs, field.Invalid(p, s.Name, fmt.Sprintf("must have at most %d characters and match regex %s", sysctlMaxLength, sysctlName)))
		case names[s.Name]:
			errs = append(errs, field.Duplicate(p, s.Name))
		}
		ns, _, _ := sysctl.GetNamespace(s.Name)
		switch {
		case spec.HostNetwork && ns == sysctl.NetNamespace:
			errs = append(errs, field.Invalid(p, s.Name, "may not be specified when 'hostNetwork' is true"))
		case spec.HostIPC && ns == sysctl.IPCNamespace:
			errs = append(errs, field.Invalid(p, s.Name, "may not be specified when 'hostIPC' is true"))
		}
		names[s.Name] = true
	}
	return errs
}

func validateSeccompProfile(sp *corev1.SeccompProfile, fld *field.Path) field.ErrorList {
	if sp == nil {
		return nil
	}
	var errs field.ErrorList
	valid := []corev1.SeccompProfileType{corev1.SeccompProfileTypeLocalhost, corev1.SeccompProfileTypeRuntimeDefault, corev1.SeccompProfileTypeUnconfined}
	switch {
	case sp.Type == "":
		errs = append(errs, field.Required(fld.Child("type"), "type is required when seccompProfile is set"))
	case !slices.Contains(valid, sp.Type):
		errs = append(errs, field.NotSupported(fld.Child("type"), sp.Type, valid))
	}
	switch {
	case sp.Type == corev1.SeccompProfileTypeLocalhost && sp.LocalhostProfile == nil:
		errs = append(errs, field.Required(fld.Child("localhostProfile"), "must be set when seccomp type is Localhost"))
	case sp.Type == corev1.SeccompProfileTypeLocalhost:
		errs = append(errs, validateLocalDescendingPath(*sp.LocalhostProfile, fld.Child("localhostProfile"))...)
	case sp.LocalhostProfile != nil:
		errs = append(errs, field.Invalid(fld.Child("localhostProfile"), resource.AsInternal(sp), "can only be set when seccomp type is Localhost"))
	}
	return errs
}

func validateAppArmorProfile(ap *corev1.AppArmorProfile, fld *field.Path) field.ErrorList {
	if ap == nil {
		return nil
	}
	localhost := fld.Child("localhostProfile")
	switch ap.Type {
	case corev1.AppArmorProfileTypeLocalhost:
		if ap.LocalhostProfile == nil {
			return field.ErrorList{field.Required(localhost, "must be set when AppArmor type is Localhost")}
		}
		var errs field.ErrorList
		trimmed := strings.TrimSpace(*ap.LocalhostProfile)
		if trimmed != *ap.LocalhostProfile {
			errs = append(errs, field.Invalid(localhost, *ap.LocalhostProfile, "must not be padded with whitespace"))
		} else if trimmed == "" {
			errs = append(errs, field.Required(localhost, "must be set when AppArmor type is Localhost"))
		}
		if len(*ap.LocalhostProfile) > 4095 {
			errs = append(errs, field.TooLong(localhost, "", 4095))
		}
		return errs
	case corev1.AppArmorProfileTypeRuntimeDefault, corev1.AppArmorProfileTypeUnconfined:
		if ap.LocalhostProfile != nil {
			return field.ErrorList{field.Invalid(localhost, ap.LocalhostProfile, "can only be set when AppArmor type is Localhost")}
		}
	case "":
		return field.ErrorList{field.Required(fld.Child("type"), "type is required when appArmorProfile is set")}
	default:
		return field.ErrorList{field.NotSupported(fld.Child("type"), ap.Type,
			[]corev1.AppArmorProfileType{corev1.AppArmorProfileTypeLocalhost, corev1.AppArmorProfileTypeRuntimeDefault, corev1.AppArmorProfileTypeUnconfined})}
	}
	return nil
}

// validateSecurityContext checks a container's security context as
// upstream's ValidateSecurityContext; privileged containers are allowed
// (kube-apiserver --allow-privileged=true).
func validateSecurityContext(sc *corev1.SecurityContext, hostUsers bool, fld *field.Path) field.ErrorList {
	if sc == nil {
		return nil
	}
	var errs field.ErrorList
	if sc.RunAsUser != nil {
		for _, msg := range validation.IsValidUserID(*sc.RunAsUser) {
			errs = append(errs, field.Invalid(fld.Child("runAsUser"), *sc.RunAsUser, msg))
		}
	}
	if sc.RunAsGroup != nil {
		for _, msg := range validation.IsValidGroupID(*sc.RunAsGroup) {
			errs = append(errs, field.Invalid(fld.Child("runAsGroup"), *sc.RunAsGroup, msg))
		}
	}
	if pm := sc.ProcMount; pm != nil {
		if *pm != corev1.DefaultProcMount && *pm != corev1.UnmaskedProcMount {
			errs = append(errs, field.NotSupported(fld.Child("procMount"), *pm, []corev1.ProcMountType{corev1.DefaultProcMount, corev1.UnmaskedProcMount}))
		}
		if hostUsers && *pm == corev1.UnmaskedProcMount {
			errs = append(errs, field.Invalid(fld.Child("procMount"), pm, "`hostUsers` must be false to use `Unmasked`"))
		}
	}
	errs = append(errs, validateSeccompProfile(sc.SeccompProfile, fld.Child("seccompProfile"))...)
	if sc.AllowPrivilegeEscalation != nil && !*sc.AllowPrivilegeEscalation {
		if sc.Privileged != nil && *sc.Privileged {
			errs = append(errs, field.Invalid(fld, resource.AsInternal(sc), "cannot set `allowPrivilegeEscalation` to false and `privileged` to true"))
		}
		if sc.Capabilities != nil {
			for _, c := range sc.Capabilities.Add {
				if c == "CAP_SYS_ADMIN" {
					errs = append(errs, field.Invalid(fld, resource.AsInternal(sc), "cannot set `allowPrivilegeEscalation` to false and `capabilities.Add` CAP_SYS_ADMIN"))
				}
			}
		}
	}
	return append(errs, validateAppArmorProfile(sc.AppArmorProfile, fld.Child("appArmorProfile"))...)
}
