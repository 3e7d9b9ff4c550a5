package pod

import (
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Field paths the downward API offers, sorted as upstream's messages
// list them.
var (
	envFieldPaths = []string{"metadata.name", "metadata.namespace", "metadata.uid", "spec.nodeName",
		"spec.serviceAccountName", "status.hostIP", "status.hostIPs", "status.podIP", "status.podIPs"}
	volumeFieldPaths = []string{"metadata.annotations", "metadata.labels", "metadata.name", "metadata.namespace", "metadata.uid"}
	resourceFields   = []string{"limits.cpu", "limits.ephemeral-storage", "limits.memory",
		"requests.cpu", "requests.ephemeral-storage", "requests.memory"}
	hugePagesFieldPrefixes = []string{"limits.hugepages-", "requests.hugepages-"}
)

// validateEnv checks a container's env as upstream's ValidateEnv (with
// the relaxed names of 1.36).
func validateEnv(vars []corev1.EnvVar, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, ev := range vars {
		p := fld.Index(i)
		if ev.Name == "" {
			errs = append(errs, field.Required(p.Child("name"), ""))
		} else {
			for _, msg := range validation.IsRelaxedEnvVarName(ev.Name) {
				errs = append(errs, field.Invalid(p.Child("name"), ev.Name, msg))
			}
		}
		errs = append(errs, validateEnvValueFrom(ev, p.Child("valueFrom"))...)
	}
	return errs
}

func validateEnvValueFrom(ev corev1.EnvVar, fld *field.Path) field.ErrorList {
	vf := ev.ValueFrom
	if vf == nil {
		return nil
	}
	var errs field.ErrorList
	n := 0
	if vf.FieldRef != nil {
		n++
		errs = append(errs, validateFieldSelector(vf.FieldRef, envFieldPaths, fld.Child("fieldRef"))...)
	}
	if vf.ResourceFieldRef != nil {
		n++
		errs = append(errs, validateResourceFieldSelector(vf.ResourceFieldRef, false, fld.Child("resourceFieldRef"))...)
	}
	if r := vf.ConfigMapKeyRef; r != nil {
		n++
		errs = append(errs, validateKeySelector(r.Name, r.Key, fld.Child("configMapKeyRef"))...)
	}
	if r := vf.SecretKeyRef; r != nil {
		n++
		errs = append(errs, validateKeySelector(r.Name, r.Key, fld.Child("secretKeyRef"))...)
	}
	if vf.FileKeyRef != nil {
		n++
	}
	switch {
	case n == 0:
		errs = append(errs, field.Invalid(fld, "", "must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef`, `secretKeyRef` or `fileKeyRef`"))
	case ev.Value != "":
		errs = append(errs, field.Invalid(fld, "", "may not be specified when `value` is not empty"))
	case n > 1:
		errs = append(errs, field.Invalid(fld, "", "may not have more than one field specified at a time"))
	}
	return errs
}

// validateKeySelector: a ConfigMap's or Secret's name and a key of it.
func validateKeySelector(name, key string, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, msg := range apivalidation.NameIsDNSSubdomain(name, false) {
		errs = append(errs, field.Invalid(fld.Child("name"), name, msg))
	}
	if key == "" {
		return append(errs, field.Required(fld.Child("key"), ""))
	}
	for _, msg := range validation.IsConfigMapKey(key) {
		errs = append(errs, field.Invalid(fld.Child("key"), key, msg))
	}
	return errs
}

// validateFieldSelector is upstream's validateObjectFieldSelector: a v1
// pod field the downward API offers here (labels and annotations also by
// key).
func validateFieldSelector(fs *corev1.ObjectFieldSelector, allowed []string, fld *field.Path) field.ErrorList {
	if fs.APIVersion == "" {
		return field.ErrorList{field.Required(fld.Child("apiVersion"), "")}
	}
	if fs.FieldPath == "" {
		return field.ErrorList{field.Required(fld.Child("fieldPath"), "")}
	}
	if err := convertDownwardAPIFieldLabel(fs.APIVersion, fs.FieldPath); err != nil {
		return field.ErrorList{field.Invalid(fld.Child("fieldPath"), fs.FieldPath, fmt.Sprintf("error converting fieldPath: %v", err))}
	}
	path, subscript, ok := splitSubscript(fs.FieldPath)
	if !ok {
		path = fs.FieldPath
		if path == "spec.host" {
			path = "spec.nodeName"
		}
		if !slices.Contains(allowed, path) {
			return field.ErrorList{field.NotSupported(fld.Child("fieldPath"), path, allowed)}
		}
		return nil
	}
	switch path {
	case "metadata.annotations":
		return validateQualifiedName(strings.ToLower(subscript), fld)
	case "metadata.labels":
		return validateQualifiedName(subscript, fld)
	}
	return field.ErrorList{field.Invalid(fld, path, "does not support subscript")}
}

func validateQualifiedName(v string, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, msg := range validation.IsQualifiedName(v) {
		errs = append(errs, field.Invalid(fld, v, msg))
	}
	return errs
}

// convertDownwardAPIFieldLabel accepts the field labels of v1 pods the
// downward API knows (upstream's ConvertDownwardAPIFieldLabel).
func convertDownwardAPIFieldLabel(version, label string) error {
	if version != "v1" {
		return fmt.Errorf("unsupported pod version: %s", version)
	}
	if path, _, ok := splitSubscript(label); ok {
		if path == "metadata.annotations" || path == "metadata.labels" {
			return nil
		}
		return fmt.Errorf("field label does not support subscript: %s", label)
	}
	switch label {
	case "metadata.annotations", "metadata.labels", "metadata.name", "metadata.namespace", "metadata.uid",
		"spec.nodeName", "spec.restartPolicy", "spec.serviceAccountName", "spec.schedulerName",
		"status.phase", "status.hostIP", "status.hostIPs", "status.podIP", "status.podIPs", "spec.host":
		return nil
	}
	return fmt.Errorf("field label not supported: %s", label)
}

// splitSubscript splits "path['key']" into path and key.
func splitSubscript(fieldPath string) (string, string, bool) {
	if !strings.HasSuffix(fieldPath, "']") {
		return "", "", false
	}
	s := strings.TrimSuffix(fieldPath, "']")
	parts := strings.SplitN(s, "['", 2)
	if len(parts) < 2 || len(parts[0]) == 0 {
		return "", "", false
	}
	return parts[0], parts[1], true
}

// validateResourceFieldSelector is upstream's
// validateContainerResourceFieldSelector (volume: the container name is
// required).
func validateResourceFieldSelector(fs *corev1.ResourceFieldSelector, volume bool, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	switch {
	case volume && fs.ContainerName == "":
		errs = append(errs, field.Required(fld.Child("containerName"), ""))
	case fs.Resource == "":
		errs = append(errs, field.Required(fld.Child("resource"), ""))
	case !slices.Contains(resourceFields, fs.Resource) && !hasAnyPrefix(fs.Resource, hugePagesFieldPrefixes):
		errs = append(errs, field.NotSupported(fld.Child("resource"), fs.Resource, resourceFields))
	}
	return append(errs, validateDivisor(fs.Resource, fs.Divisor.String(), fs.Divisor.IsZero(), fld)...)
}

func hasAnyPrefix(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

var (
	cpuDivisors  = []string{"1m", "1"}
	sizeDivisors = []string{"1", "1k", "1M", "1G", "1T", "1P", "1E", "1Ki", "1Mi", "1Gi", "1Ti", "1Pi", "1Ei"}
)

const sizeDivisorList = "1, 1k, 1M, 1G, 1T, 1P, 1E, 1Ki, 1Mi, 1Gi, 1Ti, 1Pi, 1Ei"

func validateDivisor(resource, divisor string, unset bool, fld *field.Path) field.ErrorList {
	if unset {
		return nil
	}
	var errs field.ErrorList
	bad := func(msg string) { errs = append(errs, field.Invalid(fld.Child("divisor"), resource, msg)) }
	switch resource {
	case "limits.cpu", "requests.cpu":
		if !slices.Contains(cpuDivisors, divisor) {
			bad("only divisor's values 1m and 1 are supported with the cpu resource")
		}
	case "limits.memory", "requests.memory":
		if !slices.Contains(sizeDivisors, divisor) {
			bad("only divisor's values " + sizeDivisorList + " are supported with the memory resource")
		}
	case "limits.ephemeral-storage", "requests.ephemeral-storage":
		if !slices.Contains(sizeDivisors, divisor) {
			bad("only divisor's values " + sizeDivisorList + " are supported with the local ephemeral storage resource")
		}
	}
	if hasAnyPrefix(resource, hugePagesFieldPrefixes) && !slices.Contains(sizeDivisors, divisor) {
		bad("only divisor's values " + sizeDivisorList + " are supported with the hugepages resource")
	}
	return errs
}

// validateEnvFrom checks envFrom as upstream's ValidateEnvFrom.
func validateEnvFrom(vars []corev1.EnvFromSource, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, ev := range vars {
		p := fld.Index(i)
		if ev.Prefix != "" {
			for _, msg := range validation.IsRelaxedEnvVarName(ev.Prefix) {
				errs = append(errs, field.Invalid(p.Child("prefix"), ev.Prefix, msg))
			}
		}
		n := 0
		if r := ev.ConfigMapRef; r != nil {
			n++
			errs = append(errs, validateRefName(r.Name, p.Child("configMapRef"))...)
		}
		if r := ev.SecretRef; r != nil {
			n++
			errs = append(errs, validateRefName(r.Name, p.Child("secretRef"))...)
		}
		switch {
		case n == 0:
			errs = append(errs, field.Invalid(fld, "", "must specify one of: `configMapRef` or `secretRef`"))
		case n > 1:
			errs = append(errs, field.Invalid(fld, "", "may not have more than one field specified at a time"))
		}
	}
	return errs
}

func validateRefName(name string, fld *field.Path) field.ErrorList {
	if name == "" {
		return field.ErrorList{field.Required(fld.Child("name"), "")}
	}
	var errs field.ErrorList
	for _, msg := range apivalidation.NameIsDNSSubdomain(name, true) {
		errs = append(errs, field.Invalid(fld.Child("name"), name, msg))
	}
	return errs
}
