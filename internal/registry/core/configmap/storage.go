package configmap

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/svcplane/svcplane/internal/registry/resource"
)

// Definition returns the configmaps resource.
func Definition() *resource.Definition {
	return &resource.Definition{
		GroupVersion: corev1.SchemeGroupVersion, Kind: "ConfigMap",
		Resource: "configmaps", Singular: "configmap", Namespaced: true,
		ShortNames: []string{"cm"},
		New:        func() runtime.Object { return &corev1.ConfigMap{} },
		NewList:    func() runtime.Object { return &corev1.ConfigMapList{} },
		Validate: func(ctx context.Context, obj runtime.Object) field.ErrorList {
			cm := obj.(*corev1.ConfigMap)
			return ValidateKeys(cm.Data, cm.BinaryData, "data", "binaryData")
		},
		ValidateUpdate: func(ctx context.Context, obj, old runtime.Object) field.ErrorList {
			cm, o := obj.(*corev1.ConfigMap), old.(*corev1.ConfigMap)
			errs := ValidateKeys(cm.Data, cm.BinaryData, "data", "binaryData")
			if o.Immutable != nil && *o.Immutable {
				if cm.Immutable == nil || !*cm.Immutable {
					errs = append(errs, field.Forbidden(field.NewPath("immutable"), "field is immutable when `immutable` is set"))
				}
				if fmt.Sprint(cm.Data) != fmt.Sprint(o.Data) || fmt.Sprint(cm.BinaryData) != fmt.Sprint(o.BinaryData) {
					errs = append(errs, field.Forbidden(field.NewPath("data"), "field is immutable when `immutable` is set"))
				}
			}
			return errs
		},
		Columns: []metav1.TableColumnDefinition{
			resource.Column("Data", "integer", 0, "Data contains the configuration data."),
			resource.AgeColumn,
		},
		Row: func(obj runtime.Object) []interface{} {
			cm := obj.(*corev1.ConfigMap)
			return []interface{}{int64(len(cm.Data) + len(cm.BinaryData)), resource.AgeOf(obj)}
		},
	}
}

// ValidateKeys checks that every key is a valid config key and that no key
// is in both maps (configmaps: data/binaryData; secrets: data/stringData).
func ValidateKeys[V1, V2 any](a map[string]V1, b map[string]V2, aName, bName string) field.ErrorList {
	var errs field.ErrorList
	for k := range a {
		for _, msg := range validation.IsConfigMapKey(k) {
			errs = append(errs, field.Invalid(field.NewPath(aName).Key(k), k, msg))
		}
	}
	for k := range b {
		for _, msg := range validation.IsConfigMapKey(k) {
			errs = append(errs, field.Invalid(field.NewPath(bName).Key(k), k, msg))
		}
		if _, dup := a[k]; dup {
			errs = append(errs, field.Invalid(field.NewPath(bName).Key(k), k, "duplicate of key present in "+aName))
		}
	}
	return errs
}
