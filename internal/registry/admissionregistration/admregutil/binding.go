package admregutil

import (
	"fmt"
	"strings"

	v1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/api/validate/content"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/client-go/util/jsonpath"
)

// ValidateValidatingAdmissionPolicyBinding checks a binding's spec (create
// and update alike).
func ValidateValidatingAdmissionPolicyBinding(b *v1.ValidatingAdmissionPolicyBinding) field.ErrorList {
	p := field.NewPath("spec")
	errs := validatePolicyName(b.Spec.PolicyName, p.Child("policyName"))
	errs = append(errs, validateParamRef(b.Spec.ParamRef, p.Child("paramRef"))...)
	errs = append(errs, validateMatchResources(b.Spec.MatchResources, p.Child("matchResources"))...)
	return append(errs, validateValidationActions(b.Spec.ValidationActions, p.Child("validationActions"))...)
}

// ValidateMutatingAdmissionPolicyBinding checks a binding's spec: as the
// validating one's, and its rules may not match DELETE.
func ValidateMutatingAdmissionPolicyBinding(b *v1.MutatingAdmissionPolicyBinding) field.ErrorList {
	p := field.NewPath("spec")
	errs := validatePolicyName(b.Spec.PolicyName, p.Child("policyName"))
	errs = append(errs, validateParamRef(b.Spec.ParamRef, p.Child("paramRef"))...)
	errs = append(errs, validateMatchResources(b.Spec.MatchResources, p.Child("matchResources"))...)
	if b.Spec.MatchResources != nil {
		errs = append(errs, validateMutatingOperations(b.Spec.MatchResources.ResourceRules, p.Child("matchResources", "resourceRules", "operations"))...)
	}
	return errs
}

func validatePolicyName(name string, p *field.Path) field.ErrorList {
	if name == "" {
		return field.ErrorList{field.Required(p, "")}
	}
	var errs field.ErrorList
	for _, msg := range apivalidation.NameIsDNSSubdomain(name, false) {
		errs = append(errs, field.Invalid(p, name, msg))
	}
	return errs
}

func validateParamRef(pr *v1.ParamRef, p *field.Path) field.ErrorList {
	if pr == nil {
		return nil
	}
	var errs field.ErrorList
	const exclusive = `name and selector are mutually exclusive`
	if pr.Name != "" {
		for _, msg := range content.IsPathSegmentName(pr.Name) {
			errs = append(errs, field.Invalid(p.Child("name"), pr.Name, msg))
		}
		if pr.Selector != nil {
			errs = append(errs, field.Forbidden(p.Child("name"), exclusive))
		}
	}
	if pr.Selector != nil {
		errs = append(errs, metav1validation.ValidateLabelSelector(pr.Selector, metav1validation.LabelSelectorValidationOptions{}, p.Child("selector"))...)
		if pr.Name != "" {
			errs = append(errs, field.Forbidden(p.Child("selector"), exclusive))
		}
	}
	if pr.Name == "" && pr.Selector == nil {
		errs = append(errs, field.Required(p, `one of name or selector must be specified`))
	}
	switch a := pr.ParameterNotFoundAction; {
	case a == nil || *a == "":
		errs = append(errs, field.Required(p.Child("parameterNotFoundAction"), ""))
	case *a != v1.DenyAction && *a != v1.AllowAction:
		// As upstream, the value printed is the pointer.
		errs = append(errs, field.NotSupported(p.Child("parameterNotFoundAction"), a, []string{string(v1.DenyAction), string(v1.AllowAction)}))
	}
	return errs
}

func validateValidationActions(actions []v1.ValidationAction, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	seen := sets.NewString()
	for i, a := range actions {
		if !validValidationActions.Has(string(a)) {
			errs = append(errs, field.NotSupported(p.Index(i), a, validValidationActions.List()))
		}
		if seen.Has(string(a)) {
			errs = append(errs, field.Duplicate(p.Index(i), a))
		}
		seen.Insert(string(a))
	}
	if seen.Has(string(v1.Deny)) && seen.Has(string(v1.Warn)) {
		errs = append(errs, field.Invalid(p, actions, "must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)"))
	}
	if seen.Len() == 0 {
		errs = append(errs, field.Required(p, "at least one validation action is required"))
	}
	return errs
}

func validateMutatingOperations(rules []v1.NamedRuleWithOperations, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, r := range rules {
		for _, op := range r.Operations {
			if !supportedMutatingOperations.Has(string(op)) {
				errs = append(errs, field.NotSupported(p, op, supportedMutatingOperations.List()))
			}
		}
	}
	return errs
}

func validateFieldRef(ref string, p *field.Path) field.ErrorList {
	ref = strings.TrimSpace(ref)
	if ref == "" {
		return field.ErrorList{field.Required(p, "")}
	}
	if err := jsonpath.New("spec").Parse(fmt.Sprintf("{%s}", ref)); err != nil {
		return field.ErrorList{field.Invalid(p, ref, fmt.Sprintf("invalid JSONPath: %v", err))}
	}
	return nil
}
