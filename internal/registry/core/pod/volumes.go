package pod

import (
	"path"
	"reflect"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

const fileModeMsg = "must be a number between 0 and 0777 (octal), both inclusive"

var hostPathTypes = []corev1.HostPathType{corev1.HostPathUnset, corev1.HostPathBlockDev, corev1.HostPathCharDev,
	corev1.HostPathDirectory, corev1.HostPathDirectoryOrCreate, corev1.HostPathFile, corev1.HostPathFileOrCreate, corev1.HostPathSocket}

// validateVolumes checks the volumes as upstream's ValidateVolumes and
// returns the names of the valid ones, for the mounts to refer to.
func validateVolumes(volumes []corev1.Volume, fld *field.Path) (sets.Set[string], field.ErrorList) {
	var errs field.ErrorList
	names := sets.New[string]()
	for i, v := range volumes {
		p := fld.Index(i)
		el := validateVolumeSource(&v.VolumeSource, p)
		if v.Name == "" {
			el = append(el, field.Required(p.Child("name"), ""))
		} else {
			for _, msg := range validation.IsDNS1123Label(v.Name) {
				el = append(el, field.Invalid(p.Child("name"), v.Name, msg))
			}
		}
		if names.Has(v.Name) {
			el = append(el, field.Duplicate(p.Child("name"), v.Name))
		}
		if len(el) == 0 {
			names.Insert(v.Name)
		}
		errs = append(errs, el...)
	}
	return names, errs
}

// sourceOrder is the order upstream's validateVolumeSource looks at the
// sources in, with the name it reports a second source under (upstream's
// spelling, "downwarAPI" included).
var sourceOrder = []struct{ json, reported string }{
	{"emptyDir", "emptyDir"}, {"hostPath", "hostPath"}, {"gitRepo", "gitRepo"}, {"gcePersistentDisk", "gcePersistentDisk"},
	{"awsElasticBlockStore", "awsElasticBlockStore"}, {"secret", "secret"}, {"nfs", "nfs"}, {"iscsi", "iscsi"},
	{"glusterfs", "glusterfs"}, {"flocker", "flocker"}, {"persistentVolumeClaim", "persistentVolumeClaim"}, {"rbd", "rbd"},
	{"cinder", "cinder"}, {"cephfs", "cephFS"}, {"quobyte", "quobyte"}, {"downwardAPI", "downwarAPI"}, {"fc", "fc"},
	{"flexVolume", "flexVolume"}, {"configMap", "configMap"}, {"azureFile", "azureFile"}, {"vsphereVolume", "vsphereVolume"},
	{"photonPersistentDisk", "photonPersistentDisk"}, {"portworxVolume", "portworxVolume"}, {"azureDisk", "azureDisk"},
	{"storageos", "storageos"}, {"projected", "projected"}, {"scaleIO", "scaleIO"}, {"csi", "csi"}, {"ephemeral", "ephemeral"},
	{"image", "image"},
}

// setSources returns the JSON names of the sources set in s.
func setSources(s *corev1.VolumeSource) sets.Set[string] {
	set := sets.New[string]()
	v := reflect.ValueOf(s).Elem()
	for i := 0; i < v.NumField(); i++ {
		if !v.Field(i).IsNil() {
			set.Insert(strings.Split(v.Type().Field(i).Tag.Get("json"), ",")[0])
		}
	}
	return set
}

// validateVolumeSource: exactly one source, the common ones checked as
// upstream does (the cloud and network volume plugins' own fields are not).
func validateVolumeSource(s *corev1.VolumeSource, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	set := setSources(s)
	n := 0
	for _, src := range sourceOrder {
		if !set.Has(src.json) {
			continue
		}
		if n > 0 {
			errs = append(errs, field.Forbidden(fld.Child(src.reported), "may not specify more than 1 volume type"))
			continue
		}
		n++
		errs = append(errs, validateOneSource(s, src.json, fld.Child(src.json))...)
	}
	if n == 0 {
		errs = append(errs, field.Required(fld, "must specify a volume type"))
	}
	return errs
}

func validateOneSource(s *corev1.VolumeSource, name string, fld *field.Path) field.ErrorList {
	switch name {
	case "emptyDir":
		if l := s.EmptyDir.SizeLimit; l != nil && l.Cmp(resource.Quantity{}) < 0 {
			return field.ErrorList{field.Forbidden(fld.Child("sizeLimit"), "SizeLimit field must be a valid resource quantity")}
		}
	case "hostPath":
		if s.HostPath.Path == "" {
			return field.ErrorList{field.Required(fld.Child("path"), "")}
		}
		errs := validateNoBacksteps(s.HostPath.Path, fld.Child("path"))
		if t := s.HostPath.Type; t != nil && !contains(hostPathTypes, *t) {
			errs = append(errs, field.NotSupported(fld.Child("type"), t, hostPathTypes))
		}
		return errs
	case "secret":
		var errs field.ErrorList
		if s.Secret.SecretName == "" {
			errs = append(errs, field.Required(fld.Child("secretName"), ""))
		}
		return append(errs, validateModeAndItems(s.Secret.DefaultMode, s.Secret.Items, fld)...)
	case "configMap":
		var errs field.ErrorList
		if s.ConfigMap.Name == "" {
			errs = append(errs, field.Required(fld.Child("name"), ""))
		}
		return append(errs, validateModeAndItems(s.ConfigMap.DefaultMode, s.ConfigMap.Items, fld)...)
	case "persistentVolumeClaim":
		if s.PersistentVolumeClaim.ClaimName == "" {
			return field.ErrorList{field.Required(fld.Child("claimName"), "")}
		}
	case "downwardAPI":
		errs := validateMode(s.DownwardAPI.DefaultMode, fld.Child("defaultMode"))
		for _, f := range s.DownwardAPI.Items {
			errs = append(errs, validateDownwardAPIFile(&f, fld)...)
		}
		return errs
	case "projected":
		return append(validateMode(s.Projected.DefaultMode, fld.Child("defaultMode")), validateProjection(s.Projected, fld)...)
	}
	return nil
}

func validateMode(m *int32, fld *field.Path) field.ErrorList {
	if m != nil && (*m > 0777 || *m < 0) {
		return field.ErrorList{field.Invalid(fld, *m, fileModeMsg)}
	}
	return nil
}

func validateModeAndItems(mode *int32, items []corev1.KeyToPath, fld *field.Path) field.ErrorList {
	errs := validateMode(mode, fld.Child("defaultMode"))
	for i := range items {
		errs = append(errs, validateKeyToPath(&items[i], fld.Child("items").Index(i))...)
	}
	return errs
}

func validateKeyToPath(kp *corev1.KeyToPath, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	if kp.Key == "" {
		errs = append(errs, field.Required(fld.Child("key"), ""))
	}
	if kp.Path == "" {
		errs = append(errs, field.Required(fld.Child("path"), ""))
	}
	errs = append(errs, validateLocalNonReservedPath(kp.Path, fld.Child("path"))...)
	return append(errs, validateMode(kp.Mode, fld.Child("mode"))...)
}

func validateDownwardAPIFile(f *corev1.DownwardAPIVolumeFile, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	if f.Path == "" {
		errs = append(errs, field.Required(fld.Child("path"), ""))
	}
	errs = append(errs, validateLocalNonReservedPath(f.Path, fld.Child("path"))...)
	switch {
	case f.FieldRef != nil:
		errs = append(errs, validateFieldSelector(f.FieldRef, volumeFieldPaths, fld.Child("fieldRef"))...)
		if f.ResourceFieldRef != nil {
			errs = append(errs, field.Invalid(fld, "resource", "fieldRef and resourceFieldRef can not be specified simultaneously"))
		}
	case f.ResourceFieldRef != nil:
		errs = append(errs, validateResourceFieldSelector(f.ResourceFieldRef, true, fld.Child("resourceFieldRef"))...)
	default:
		errs = append(errs, field.Required(fld, "one of fieldRef and resourceFieldRef is required"))
	}
	return append(errs, validateMode(f.Mode, fld.Child("mode"))...)
}

// validateProjection checks the projected sources (secrets, config maps,
// downward API, service account tokens) as upstream's
// validateProjectionSources; cluster trust bundles and pod certificates
// are not checked.
func validateProjection(pr *corev1.ProjectedVolumeSource, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	paths := sets.New[string]()
	claim := func(p, name string) {
		if p == "" {
			return
		}
		if paths.Has(p) {
			errs = append(errs, field.Invalid(fld, name, "conflicting duplicate paths"))
		}
		paths.Insert(p)
	}
	for i, src := range pr.Sources {
		sp := fld.Child("sources").Index(i)
		if s := src.Secret; s != nil {
			errs = append(errs, validateProjectedItems(s.Name, s.Items, sp.Child("secret"), claim)...)
		}
		if c := src.ConfigMap; c != nil {
			errs = append(errs, validateProjectedItems(c.Name, c.Items, sp.Child("configMap"), claim)...)
		}
		if d := src.DownwardAPI; d != nil {
			for _, f := range d.Items {
				errs = append(errs, validateDownwardAPIFile(&f, sp.Child("downwardAPI"))...)
				claim(f.Path, f.Path)
			}
		}
		if t := src.ServiceAccountToken; t != nil {
			p := sp.Child("serviceAccountToken")
			exp := int64(0)
			if t.ExpirationSeconds != nil {
				exp = *t.ExpirationSeconds
			}
			if exp < 10*60 {
				errs = append(errs, field.Invalid(p.Child("expirationSeconds"), exp, "may not specify a duration less than 10 minutes"))
			}
			if exp > 1<<32 {
				errs = append(errs, field.Invalid(p.Child("expirationSeconds"), exp, "may not specify a duration larger than 2^32 seconds"))
			}
			if t.Path == "" {
				errs = append(errs, field.Required(fld.Child("path"), ""))
			} else {
				errs = append(errs, validateLocalNonReservedPath(t.Path, fld.Child("path"))...)
			}
		}
	}
	return errs
}

func validateProjectedItems(name string, items []corev1.KeyToPath, fld *field.Path, claim func(p, name string)) field.ErrorList {
	var errs field.ErrorList
	if name == "" {
		errs = append(errs, field.Required(fld.Child("name"), ""))
	}
	for i := range items {
		errs = append(errs, validateKeyToPath(&items[i], fld.Child("items").Index(i))...)
		claim(items[i].Path, name)
	}
	return errs
}

// validateLocalDescendingPath: relative, without "..".
func validateLocalDescendingPath(p string, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	if path.IsAbs(p) {
		errs = append(errs, field.Invalid(fld, p, "must be a relative path"))
	}
	return append(errs, validateNoBacksteps(p, fld)...)
}

func validateLocalNonReservedPath(p string, fld *field.Path) field.ErrorList {
	errs := validateLocalDescendingPath(p, fld)
	if strings.HasPrefix(p, "..") && !strings.HasPrefix(p, "../") {
		errs = append(errs, field.Invalid(fld, p, "must not start with '..'"))
	}
	return errs
}

func validateNoBacksteps(p string, fld *field.Path) field.ErrorList {
	for _, item := range strings.Split(p, "/") {
		if item == ".." {
			return field.ErrorList{field.Invalid(fld, p, "must not contain '..'")}
		}
	}
	return nil
}

func contains[T comparable](list []T, v T) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}
