package pod

import (
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// containerContext is what a container's checks need of its pod.
type containerContext struct {
	volumes   sets.Set[string]
	grace     *int64
	hostUsers bool
}

var (
	pullPolicies             = []corev1.PullPolicy{corev1.PullAlways, corev1.PullIfNotPresent, corev1.PullNever}
	containerRestartPolicies = []corev1.ContainerRestartPolicy{corev1.ContainerRestartPolicyAlways, corev1.ContainerRestartPolicyNever, corev1.ContainerRestartPolicyOnFailure}
	mountPropagations        = []corev1.MountPropagationMode{corev1.MountPropagationBidirectional, corev1.MountPropagationHostToContainer, corev1.MountPropagationNone}
)

// validateContainers checks the regular containers as upstream's
// validateContainers.
func validateContainers(cs []corev1.Container, c containerContext, fld *field.Path) field.ErrorList {
	if len(cs) == 0 {
		return field.ErrorList{field.Required(fld, "")}
	}
	var errs field.ErrorList
	names := sets.New[string]()
	for i := range cs {
		ctr, p := &cs[i], fld.Index(i)
		errs = append(errs, validateContainerCommon(ctr, c, p)...)
		if names.Has(ctr.Name) {
			errs = append(errs, field.Duplicate(p.Child("name"), ctr.Name))
		} else {
			names.Insert(ctr.Name)
		}
		errs = append(errs, validateLifecycleAndProbes(ctr, c.grace, p)...)
		if ctr.RestartPolicy != nil && !slices.Contains(containerRestartPolicies, *ctr.RestartPolicy) {
			errs = append(errs, field.NotSupported(p.Child("restartPolicy"), *ctr.RestartPolicy, containerRestartPolicies))
		}
	}
	return append(errs, hostPortConflicts(cs, fld)...)
}

// validateInitContainers checks init containers as upstream's
// validateInitContainers: names unique among all containers; hooks and
// probes only for restartable (sidecar) ones.
func validateInitContainers(cs, regular []corev1.Container, c containerContext, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	names := sets.New[string]()
	for _, r := range regular {
		names.Insert(r.Name)
	}
	for i := range cs {
		ctr, p := &cs[i], fld.Index(i)
		errs = append(errs, validateContainerCommon(ctr, c, p)...)
		sidecar := ctr.RestartPolicy != nil && *ctr.RestartPolicy == corev1.ContainerRestartPolicyAlways
		if ctr.RestartPolicy != nil && !slices.Contains(containerRestartPolicies, *ctr.RestartPolicy) {
			errs = append(errs, field.NotSupported(p.Child("restartPolicy"), *ctr.RestartPolicy, containerRestartPolicies))
		}
		if names.Has(ctr.Name) {
			errs = append(errs, field.Duplicate(p.Child("name"), ctr.Name))
		} else if ctr.Name != "" {
			names.Insert(ctr.Name)
		}
		errs = append(errs, hostPortConflicts([]corev1.Container{*ctr}, fld)...)
		if sidecar {
			errs = append(errs, validateLifecycleAndProbes(ctr, c.grace, p)...)
			continue
		}
		for _, f := range []struct {
			name string
			set  bool
		}{{"lifecycle", ctr.Lifecycle != nil}, {"livenessProbe", ctr.LivenessProbe != nil},
			{"readinessProbe", ctr.ReadinessProbe != nil}, {"startupProbe", ctr.StartupProbe != nil}} {
			if f.set {
				errs = append(errs, field.Forbidden(p.Child(f.name), "may not be set for init containers without restartPolicy=Always"))
			}
		}
	}
	return errs
}

func validateLifecycleAndProbes(ctr *corev1.Container, grace *int64, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if ctr.Lifecycle != nil {
		errs = append(errs, validateLifecycle(ctr.Lifecycle, grace, p.Child("lifecycle"))...)
	}
	errs = append(errs, validateProbe(ctr.LivenessProbe, liveness, grace, p.Child("livenessProbe"))...)
	errs = append(errs, validateProbe(ctr.ReadinessProbe, readiness, grace, p.Child("readinessProbe"))...)
	return append(errs, validateProbe(ctr.StartupProbe, startup, grace, p.Child("startupProbe"))...)
}

// validateContainerCommon is upstream's validateContainerCommon: what
// every kind of container is checked for.
func validateContainerCommon(ctr *corev1.Container, c containerContext, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if ctr.Name == "" {
		errs = append(errs, field.Required(p.Child("name"), ""))
	} else {
		errs = append(errs, validateDNS1123Label(ctr.Name, p.Child("name"))...)
	}
	if ctr.Image == "" {
		errs = append(errs, field.Required(p.Child("image"), ""))
	}
	errs = append(errs, validateEnum(ctr.TerminationMessagePolicy, p.Child("terminationMessagePolicy"),
		[]corev1.TerminationMessagePolicy{corev1.TerminationMessageReadFile, corev1.TerminationMessageFallbackToLogsOnError})...)
	errs = append(errs, validateContainerPorts(ctr.Ports, p.Child("ports"))...)
	errs = append(errs, validateEnv(ctr.Env, p.Child("env"))...)
	errs = append(errs, validateEnvFrom(ctr.EnvFrom, p.Child("envFrom"))...)
	errs = append(errs, validateVolumeMounts(ctr, c.volumes, p.Child("volumeMounts"))...)
	errs = append(errs, validateEnum(ctr.ImagePullPolicy, p.Child("imagePullPolicy"), pullPolicies)...)
	errs = append(errs, validateResourceRequirements(&ctr.Resources, validateContainerResourceName, p.Child("resources"))...)
	return append(errs, validateSecurityContext(ctr.SecurityContext, c.hostUsers, p.Child("securityContext"))...)
}

func validateContainerPorts(ports []corev1.ContainerPort, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	names := sets.New[string]()
	for i, port := range ports {
		p := fld.Index(i)
		if port.Name != "" {
			if msgs := validation.IsValidPortName(port.Name); len(msgs) != 0 {
				for _, msg := range msgs {
					errs = append(errs, field.Invalid(p.Child("name"), port.Name, msg))
				}
			} else if names.Has(port.Name) {
				errs = append(errs, field.Duplicate(p.Child("name"), port.Name))
			} else {
				names.Insert(port.Name)
			}
		}
		if port.ContainerPort == 0 {
			errs = append(errs, field.Required(p.Child("containerPort"), ""))
		} else {
			for _, msg := range validation.IsValidPortNum(int(port.ContainerPort)) {
				errs = append(errs, field.Invalid(p.Child("containerPort"), port.ContainerPort, msg))
			}
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

// hostPortConflicts: no two ports on one protocol, host IP and host
// port.
func hostPortConflicts(cs []corev1.Container, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	seen := sets.New[string]()
	for i, c := range cs {
		for j, p := range c.Ports {
			if p.HostPort == 0 {
				continue
			}
			key := fmt.Sprintf("%s/%s/%d", p.Protocol, p.HostIP, p.HostPort)
			if seen.Has(key) {
				errs = append(errs, field.Duplicate(fld.Index(i).Child("ports").Index(j).Child("hostPort"), key))
			}
			seen.Insert(key)
		}
	}
	return errs
}

// validateVolumeMounts checks a container's mounts as upstream's
// ValidateVolumeMounts (subPath, subPathExpr and mountPropagation are
// reported without the mount's index, as upstream does).
func validateVolumeMounts(ctr *corev1.Container, volumes sets.Set[string], fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	paths := sets.New[string]()
	devices := map[string]string{}
	for _, d := range ctr.VolumeDevices {
		devices[d.Name] = d.DevicePath
	}
	for i, m := range ctr.VolumeMounts {
		p := fld.Index(i)
		if m.Name == "" {
			errs = append(errs, field.Required(p.Child("name"), ""))
		}
		if !volumes.Has(m.Name) {
			errs = append(errs, field.NotFound(p.Child("name"), m.Name))
		}
		if m.MountPath == "" {
			errs = append(errs, field.Required(p.Child("mountPath"), ""))
		}
		if paths.Has(m.MountPath) {
			errs = append(errs, field.Invalid(p.Child("mountPath"), m.MountPath, "must be unique"))
		}
		paths.Insert(m.MountPath)
		if _, ok := devices[m.Name]; ok {
			errs = append(errs, field.Invalid(p.Child("name"), m.Name, "must not already exist in volumeDevices"))
		}
		for _, dp := range devices {
			if dp == m.MountPath {
				errs = append(errs, field.Invalid(p.Child("mountPath"), m.MountPath, "must not already exist as a path in volumeDevices"))
			}
		}
		if m.SubPath != "" {
			errs = append(errs, validateLocalDescendingPath(m.SubPath, fld.Child("subPath"))...)
		}
		if m.SubPathExpr != "" {
			if m.SubPath != "" {
				errs = append(errs, field.Invalid(p.Child("subPathExpr"), m.SubPathExpr, "subPathExpr and subPath are mutually exclusive"))
			}
			errs = append(errs, validateLocalDescendingPath(m.SubPathExpr, fld.Child("subPathExpr"))...)
		}
		errs = append(errs, validateMountPropagation(m.MountPropagation, ctr, fld.Child("mountPropagation"))...)
		errs = append(errs, validateRecursiveReadOnly(m, fld.Child("recursiveReadOnly"))...)
	}
	return errs
}

func validateMountPropagation(mp *corev1.MountPropagationMode, ctr *corev1.Container, fld *field.Path) field.ErrorList {
	if mp == nil {
		return nil
	}
	var errs field.ErrorList
	if !slices.Contains(mountPropagations, *mp) {
		errs = append(errs, field.NotSupported(fld, *mp, mountPropagations))
	}
	sc := ctr.SecurityContext
	privileged := sc != nil && sc.Privileged != nil && *sc.Privileged
	if *mp == corev1.MountPropagationBidirectional && !privileged {
		errs = append(errs, field.Forbidden(fld, "Bidirectional mount propagation is available only to privileged containers"))
	}
	return errs
}

func validateRecursiveReadOnly(m corev1.VolumeMount, fld *field.Path) field.ErrorList {
	if m.RecursiveReadOnly == nil {
		return nil
	}
	var errs field.ErrorList
	switch *m.RecursiveReadOnly {
	case corev1.RecursiveReadOnlyDisabled:
	case corev1.RecursiveReadOnlyEnabled, corev1.RecursiveReadOnlyIfPossible:
		if !m.ReadOnly {
			errs = append(errs, field.Forbidden(fld, "may only be specified when readOnly is true"))
		}
		if m.MountPropagation != nil && *m.MountPropagation != corev1.MountPropagationNone {
			errs = append(errs, field.Forbidden(fld, "may only be specified when mountPropagation is None or not specified"))
		}
	default:
		errs = append(errs, field.NotSupported(fld, *m.RecursiveReadOnly, []corev1.RecursiveReadOnlyMode{
			corev1.RecursiveReadOnlyDisabled, corev1.RecursiveReadOnlyEnabled, corev1.RecursiveReadOnlyIfPossible}))
	}
	return errs
}

// validateContainersOnlyForPod: a Pod's images may not have surrounding
// whitespace (templates may, for compatibility).
func validateContainersOnlyForPod(cs []corev1.Container, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, c := range cs {
		if len(c.Image) != len(strings.TrimSpace(c.Image)) {
			errs = append(errs, field.Invalid(fld.Index(i).Child("image"), c.Image, "must not have leading or trailing whitespace"))
		}
	}
	return errs
}
