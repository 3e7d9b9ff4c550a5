package configmap

import (
	"reflect"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// MaxSize is the most data a ConfigMap or Secret holds (upstream's
// MaxSecretSize, 1 MiB).
const MaxSize = 1 * 1024 * 1024

// ImmutableMsg is upstream's message for a change of an immutable
// ConfigMap or Secret.
const ImmutableMsg = "field is immutable when `immutable` is set"

// validate checks keys and size as upstream's ValidateConfigMap.
func validate(cm *corev1.ConfigMap) field.ErrorList {
	var errs field.ErrorList
	size := 0
	for k, v := range cm.Data {
		errs = append(errs, ValidateKey(field.NewPath("data"), k)...)
		if _, dup := cm.BinaryData[k]; dup {
			errs = append(errs, field.Invalid(field.NewPath("data").Key(k), k, "duplicate of key present in binaryData"))
		}
		size += len(v)
	}
	for k, v := range cm.BinaryData {
		errs = append(errs, ValidateKey(field.NewPath("binaryData"), k)...)
		size += len(v)
	}
	if size > MaxSize {
		errs = append(errs, field.TooLong(field.NewPath(""), "", MaxSize))
	}
	return errs
}

// validateUpdate: an immutable ConfigMap keeps its data and stays
// immutable; the new object is checked as on create.
func validateUpdate(cm, old *corev1.ConfigMap) field.ErrorList {
	var errs field.ErrorList
	if old.Immutable != nil && *old.Immutable {
		if cm.Immutable == nil || !*cm.Immutable {
			errs = append(errs, field.Forbidden(field.NewPath("immutable"), ImmutableMsg))
		}
		if !reflect.DeepEqual(cm.Data, old.Data) {
			errs = append(errs, field.Forbidden(field.NewPath("data"), ImmutableMsg))
		}
		if !reflect.DeepEqual(cm.BinaryData, old.BinaryData) {
			errs = append(errs, field.Forbidden(field.NewPath("binaryData"), ImmutableMsg))
		}
	}
	return append(errs, validate(cm)...)
}

// ValidateKey checks one key of a data map (a valid config key).
func ValidateKey(fld *field.Path, k string) field.ErrorList {
	var errs field.ErrorList
	for _, msg := range validation.IsConfigMapKey(k) {
		errs = append(errs, field.Invalid(fld.Key(k), k, msg))
	}
	return errs
}
