package storageclass

import (
	"context"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/svcplane/svcplane/internal/registry/core/node"
	"github.com/svcplane/svcplane/internal/registry/resource"
)

const (
	maxParameterSize = 256 * (1 << 10)
	maxParameters    = 512
)

var (
	reclaimPolicies = []string{string(corev1.PersistentVolumeReclaimDelete), string(corev1.PersistentVolumeReclaimRetain)}
	bindingModes    = []string{string(storagev1.VolumeBindingImmediate), string(storagev1.VolumeBindingWaitForFirstConsumer)}
)

// Definition returns the storageclasses resource.
func Definition() *resource.Definition {
	doc := storagev1.StorageClass{}.SwaggerDoc()
	return &resource.Definition{
		GroupVersion: storagev1.SchemeGroupVersion, Kind: "StorageClass",
		Resource: "storageclasses", Singular: "storageclass", ShortNames: []string{"sc"},
		New:     func() runtime.Object { return &storagev1.StorageClass{} },
		NewList: func() runtime.Object { return &storagev1.StorageClassList{} },
		Default: func(obj runtime.Object) { Default(obj.(*storagev1.StorageClass)) },
		Validate: func(ctx context.Context, obj runtime.Object) field.ErrorList {
			return Validate(obj.(*storagev1.StorageClass))
		},
		ValidateUpdate: func(ctx context.Context, obj, old runtime.Object) field.ErrorList {
			sc, o := obj.(*storagev1.StorageClass), old.(*storagev1.StorageClass)
			return append(Validate(sc), ValidateUpdate(sc, o)...)
		},
		Warnings: func(ctx context.Context, obj, old runtime.Object) []string {
			return warnings(obj.(*storagev1.StorageClass))
		},
		// The name column says "(default)" of the default class.
		OmitNameColumn: true,
		Columns: []metav1.TableColumnDefinition{
			{Name: "Name", Type: "string", Format: "name", Description: metav1.ObjectMeta{}.SwaggerDoc()["name"]},
			resource.Column("Provisioner", "string", 0, doc["provisioner"]),
			resource.Column("ReclaimPolicy", "string", 0, doc["reclaimPolicy"]),
			resource.Column("VolumeBindingMode", "string", 0, doc["volumeBindingMode"]),
			resource.Column("AllowVolumeExpansion", "string", 0, doc["allowVolumeExpansion"]),
			resource.AgeColumn,
		},
		Row: row,
	}
}

func row(obj runtime.Object) []interface{} {
	sc := obj.(*storagev1.StorageClass)
	name := sc.Name
	if sc.Annotations["storageclass.kubernetes.io/is-default-class"] == "true" ||
		sc.Annotations["storageclass.beta.kubernetes.io/is-default-class"] == "true" {
		name += " (default)"
	}
	reclaim, binding := string(corev1.PersistentVolumeReclaimDelete), string(storagev1.VolumeBindingImmediate)
	if sc.ReclaimPolicy != nil {
		reclaim = string(*sc.ReclaimPolicy)
	}
	if sc.VolumeBindingMode != nil {
		binding = string(*sc.VolumeBindingMode)
	}
	expansion := sc.AllowVolumeExpansion != nil && *sc.AllowVolumeExpansion
	return []interface{}{name, sc.Provisioner, reclaim, binding, expansion, resource.AgeOf(obj)}
}

// Default is upstream's SetDefaults_StorageClass.
func Default(sc *storagev1.StorageClass) {
	if sc.ReclaimPolicy == nil {
		p := corev1.PersistentVolumeReclaimDelete
		sc.ReclaimPolicy = &p
	}
	if sc.VolumeBindingMode == nil {
		m := storagev1.VolumeBindingImmediate
		sc.VolumeBindingMode = &m
	}
}

// Validate is upstream's ValidateStorageClass beyond the object meta.
func Validate(sc *storagev1.StorageClass) field.ErrorList {
	var errs field.ErrorList
	fld := field.NewPath("provisioner")
	if sc.Provisioner == "" {
		errs = append(errs, field.Required(fld, sc.Provisioner))
	} else {
		lower := strings.ToLower(sc.Provisioner)
		for _, msg := range validation.IsQualifiedName(lower) {
			errs = append(errs, field.Invalid(fld, lower, msg))
		}
	}
	errs = append(errs, validateParameters(sc.Parameters, field.NewPath("parameters"))...)
	if p := sc.ReclaimPolicy; p != nil && *p != "" && !contains(reclaimPolicies, string(*p)) {
		errs = append(errs, field.NotSupported(field.NewPath("reclaimPolicy"), p, reclaimPolicies))
	}
	if m := sc.VolumeBindingMode; m == nil {
		errs = append(errs, field.Required(field.NewPath("volumeBindingMode"), ""))
	} else if !contains(bindingModes, string(*m)) {
		errs = append(errs, field.NotSupported(field.NewPath("volumeBindingMode"), m, bindingModes))
	}
	return append(errs, validateAllowedTopologies(sc.AllowedTopologies, field.NewPath("allowedTopologies"))...)
}

func contains(list []string, v string) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

func validateParameters(params map[string]string, fld *field.Path) field.ErrorList {
	if len(params) > maxParameters {
		return field.ErrorList{field.TooLong(fld, "", maxParameters)}
	}
	var errs field.ErrorList
	var size int64
	for k, v := range params {
		if k == "" {
			errs = append(errs, field.Invalid(fld, k, "field can not be empty."))
		}
		size += int64(len(k)) + int64(len(v))
	}
	if size > maxParameterSize {
		errs = append(errs, field.TooLong(fld, "", maxParameterSize))
	}
	return errs
}

// validateAllowedTopologies: each term's expressions have values, unique
// values and keys, label-name keys; no two terms alike.
func validateAllowedTopologies(terms []corev1.TopologySelectorTerm, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	var seen []map[string]map[string]bool
	for i, term := range terms {
		exprs := map[string]map[string]bool{}
		p := fld.Index(i).Child("matchLabelExpressions")
		for j, req := range term.MatchLabelExpressions {
			rp := p.Index(j)
			values := map[string]bool{}
			if len(req.Values) == 0 {
				errs = append(errs, field.Required(rp.Child("values"), ""))
			}
			for k, v := range req.Values {
				if values[v] {
					errs = append(errs, field.Duplicate(rp.Child("values").Index(k), v))
				}
				values[v] = true
			}
			errs = append(errs, metav1validation.ValidateLabelName(req.Key, rp.Child("key"))...)
			if _, ok := exprs[req.Key]; ok {
				errs = append(errs, field.Duplicate(rp.Child("key"), req.Key))
			}
			exprs[req.Key] = values
		}
		for _, other := range seen {
			if apiequality.Semantic.DeepEqual(exprs, other) {
				errs = append(errs, field.Duplicate(p, ""))
			}
		}
		seen = append(seen, exprs)
	}
	return errs
}

// ValidateUpdate is upstream's ValidateStorageClassUpdate beyond the
// metadata.
func ValidateUpdate(sc, old *storagev1.StorageClass) field.ErrorList {
	errs := apivalidation.ValidateImmutableField(sc.Parameters, old.Parameters, field.NewPath("parameters"))
	errs = append(errs, apivalidation.ValidateImmutableField(sc.Provisioner, old.Provisioner, field.NewPath("provisioner"))...)
	errs = append(errs, apivalidation.ValidateImmutableField(sc.ReclaimPolicy, old.ReclaimPolicy, field.NewPath("reclaimPolicy"))...)
	return append(errs, apivalidation.ValidateImmutableField(sc.VolumeBindingMode, old.VolumeBindingMode, field.NewPath("volumeBindingMode"))...)
}

// warnings: deprecated node labels in allowedTopologies.
func warnings(sc *storagev1.StorageClass) []string {
	var out []string
	for i, t := range sc.AllowedTopologies {
		for j, e := range t.MatchLabelExpressions {
			if msg, ok := node.DeprecatedLabel(e.Key); ok {
				out = append(out, fmt.Sprintf("%s: %s", field.NewPath("allowedTopologies").Index(i).Child("matchLabelExpressions").Index(j).Child("key"), msg))
			}
		}
	}
	return out
}
