package ipaddress

import (
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/api/validate/content"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// parentRefValue renders a parentRef in errors as upstream's internal type
// does (Go field names, every field).
type parentRefValue struct{ Group, Resource, Namespace, Name string }

func refValue(ref *networkingv1.ParentReference) interface{} {
	if ref == nil {
		return (*parentRefValue)(nil)
	}
	return &parentRefValue{ref.Group, ref.Resource, ref.Namespace, ref.Name}
}

// validateParentRef checks the parentRef as upstream's
// validateIPAddressParentReference.
func validateParentRef(ref *networkingv1.ParentReference) field.ErrorList {
	p := field.NewPath("spec", "parentRef")
	if ref == nil {
		return field.ErrorList{field.Required(p, "")}
	}
	var errs field.ErrorList
	if ref.Group != "" {
		for _, msg := range validation.IsDNS1123Subdomain(ref.Group) {
			errs = append(errs, field.Invalid(p.Child("group"), ref.Group, msg))
		}
	}
	for _, f := range []struct {
		name, value string
		required    bool
	}{{"resource", ref.Resource, true}, {"name", ref.Name, true}, {"namespace", ref.Namespace, false}} {
		if f.value == "" {
			if f.required {
				errs = append(errs, field.Required(p.Child(f.name), ""))
			}
			continue
		}
		for _, msg := range content.IsPathSegmentName(f.value) {
			errs = append(errs, field.Invalid(p.Child(f.name), f.value, msg))
		}
	}
	return errs
}

func validateUpdate(ip, old *networkingv1.IPAddress) field.ErrorList {
	p := field.NewPath("spec", "parentRef")
	if errs := apivalidation.ValidateImmutableField(ip.Spec.ParentRef, old.Spec.ParentRef, p); len(errs) > 0 {
		return field.ErrorList{field.Invalid(p, refValue(ip.Spec.ParentRef), apivalidation.FieldImmutableErrorMsg)}
	}
	return nil
}
