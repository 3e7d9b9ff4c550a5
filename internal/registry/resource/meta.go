package resource

import (
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// standardFinalizers are the finalizer names that need no domain prefix
// (upstream's core helper IsStandardFinalizerName).
var standardFinalizers = map[string]bool{
	"kubernetes":                     true,
	metav1.FinalizerOrphanDependents: true,
	metav1.FinalizerDeleteDependents: true,
}

// ValidateKubeFinalizerName refuses a finalizer name without a domain
// prefix unless it is a standard one (upstream's validateKubeFinalizerName,
// which every kind's object meta check runs).
func ValidateKubeFinalizerName(name string, fld *field.Path) field.ErrorList {
	if !strings.Contains(name, "/") && !standardFinalizers[name] {
		return field.ErrorList{field.Invalid(fld, name, "name is neither a standard finalizer name nor is it fully qualified")}
	}
	return nil
}

// ValidateObjectMeta checks a new object's metadata as upstream's core
// ValidateObjectMeta: the generic checks with the kind's name rule, and
// the finalizer names.
func ValidateObjectMeta(m metav1.Object, namespaced bool, name apivalidation.ValidateNameFunc, fld *field.Path) field.ErrorList {
	errs := apivalidation.ValidateObjectMetaAccessor(m, namespaced, name, fld)
	return append(errs, finalizerNames(m, fld)...)
}

// ValidateObjectMetaUpdate checks an update's metadata as upstream's core
// ValidateObjectMetaUpdate.
func ValidateObjectMetaUpdate(m, old metav1.Object, fld *field.Path) field.ErrorList {
	errs := apivalidation.ValidateObjectMetaAccessorUpdate(m, old, fld)
	return append(errs, finalizerNames(m, fld)...)
}

func finalizerNames(m metav1.Object, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, f := range m.GetFinalizers() {
		errs = append(errs, ValidateKubeFinalizerName(f, fld.Child("finalizers").Index(i))...)
	}
	return errs
}

// validateMeta is the object meta check of a create with def's name rule
// and scope.
func (s *strategy) validateMeta(obj runtime.Object) field.ErrorList {
	m, err := meta.Accessor(obj)
	if err != nil {
		return field.ErrorList{field.InternalError(field.NewPath("metadata"), err)}
	}
	nameFn := s.def.NameValidation
	if nameFn == nil {
		nameFn = apivalidation.NameIsDNSSubdomain
	}
	switch s.def.MetaValidation {
	case MetaNone:
		return nil
	case MetaGeneric:
		return apivalidation.ValidateObjectMetaAccessor(m, s.def.Namespaced, nameFn, field.NewPath("metadata"))
	}
	return ValidateObjectMeta(m, s.def.Namespaced, nameFn, field.NewPath("metadata"))
}

// validateMetaUpdate is the object meta check of an update.
func (s *strategy) validateMetaUpdate(obj, old runtime.Object) field.ErrorList {
	m, err1 := meta.Accessor(obj)
	o, err2 := meta.Accessor(old)
	if err1 != nil || err2 != nil {
		return field.ErrorList{field.InternalError(field.NewPath("metadata"), err1)}
	}
	switch s.def.MetaValidation {
	case MetaNone:
		return nil
	case MetaGeneric:
		return apivalidation.ValidateObjectMetaAccessorUpdate(m, o, field.NewPath("metadata"))
	}
	return ValidateObjectMetaUpdate(m, o, field.NewPath("metadata"))
}
