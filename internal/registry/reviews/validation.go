package reviews

import (
	"fmt"

	authorizationv1 "k8s.io/api/authorization/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// validateAttributes: exactly one of resourceAttributes and
// nonResourceAttributes, and well-formed selectors.
func validateAttributes(res *authorizationv1.ResourceAttributes, nonRes *authorizationv1.NonResourceAttributes, spec *field.Path) field.ErrorList {
	var errs field.ErrorList
	if res != nil && nonRes != nil {
		errs = append(errs, field.Invalid(spec.Child("nonResourceAttributes"), nonRes, `cannot be specified in combination with resourceAttributes`))
	}
	if res == nil && nonRes == nil {
		errs = append(errs, field.Invalid(spec.Child("resourceAttributes"), nonRes, `exactly one of nonResourceAttributes or resourceAttributes must be specified`))
	}
	if res == nil {
		return errs
	}
	path := field.NewPath("spec.resourceAttributes")
	if s := res.FieldSelector; s != nil {
		p := path.Child("fieldSelector")
		errs = append(errs, validateRawOrRequirements(s.RawSelector, len(s.Requirements), p)...)
		opts := metav1validation.FieldSelectorValidationOptions{AllowUnknownOperatorInRequirement: true}
		for i, r := range s.Requirements {
			errs = append(errs, metav1validation.ValidateFieldSelectorRequirement(r, opts, p.Child("requirements").Index(i))...)
		}
	}
	if s := res.LabelSelector; s != nil {
		p := path.Child("labelSelector")
		errs = append(errs, validateRawOrRequirements(s.RawSelector, len(s.Requirements), p)...)
		opts := metav1validation.LabelSelectorValidationOptions{AllowUnknownOperatorInRequirement: true}
		for i, r := range s.Requirements {
			errs = append(errs, metav1validation.ValidateLabelSelectorRequirement(r, opts, p.Child("requirements").Index(i))...)
		}
	}
	return errs
}

func validateRawOrRequirements(raw string, n int, p *field.Path) field.ErrorList {
	if raw != "" && n > 0 {
		return field.ErrorList{field.Invalid(p.Child("rawSelector"), raw, "may not specified at the same time as requirements")}
	}
	if raw == "" && n == 0 {
		return field.ErrorList{field.Required(p.Child("requirements"), fmt.Sprintf("when %s is specified, requirements or rawSelector is required", p))}
	}
	return nil
}

// validateSubject: a SubjectAccessReview must name a user or a group.
func validateSubject(spec *authorizationv1.SubjectAccessReviewSpec) field.ErrorList {
	errs := validateAttributes(spec.ResourceAttributes, spec.NonResourceAttributes, field.NewPath("spec"))
	if spec.User == "" && len(spec.Groups) == 0 {
		errs = append(errs, field.Invalid(field.NewPath("spec", "user"), spec.User, `at least one of user or group must be specified`))
	}
	return errs
}

// validateEmptyMeta: a review's metadata must be empty (managed fields
// aside; keepNamespace allows metadata.namespace).
func validateEmptyMeta(m metav1.ObjectMeta, keepNamespace bool) field.ErrorList {
	c := m
	c.ManagedFields = nil
	msg := `must be empty`
	if keepNamespace {
		c.Namespace = ""
		msg = `must be empty except for namespace`
	}
	if !equality.Semantic.DeepEqual(metav1.ObjectMeta{}, c) {
		return field.ErrorList{field.Invalid(field.NewPath("metadata"), m, msg)}
	}
	return nil
}
