package admregutil

import (
	"fmt"
	"regexp"
	"strings"

	v1 "k8s.io/api/admissionregistration/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/sets"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	plugincel "k8s.io/apiserver/pkg/admission/plugin/cel"
	policyvalidating "k8s.io/apiserver/pkg/admission/plugin/policy/validating"
	"k8s.io/apiserver/pkg/cel"
)

const (
	maxAuditAnnotations = 20
	// maxAuditAnnotationValueExpressionLength is 5 KiB, less than the 10 KiB
	// of an audit annotation's value.
	maxAuditAnnotationValueExpressionLength = 5 * 1024
)

var (
	supportedValidationPolicyReasons = sets.NewString(string(metav1.StatusReasonForbidden), string(metav1.StatusReasonInvalid), string(metav1.StatusReasonRequestEntityTooLarge))
	validValidationActions           = sets.NewString(string(v1.Deny), string(v1.Warn), string(v1.Audit))
	newlines                         = regexp.MustCompile(`[\n\r]+`)
)

// policyOptions are an update's relaxations.
type policyOptions struct {
	ignoreMatchConditions bool
	old                   preexisting
}

// ValidateValidatingAdmissionPolicy checks a new policy's spec (its object
// meta is checked by the caller).
func ValidateValidatingAdmissionPolicy(p *v1.ValidatingAdmissionPolicy) field.ErrorList {
	return validateValidatingAdmissionPolicySpec(p.Name, &p.Spec, policyOptions{old: newPreexisting()}, field.NewPath("spec"))
}

// ValidateValidatingAdmissionPolicyUpdate checks an update: the match
// conditions are not checked again when they and the paramKind did not
// change, and expressions the stored policy had compile in the stored
// environment.
func ValidateValidatingAdmissionPolicyUpdate(p, old *v1.ValidatingAdmissionPolicy) field.ErrorList {
	o := policyOptions{
		ignoreMatchConditions: apiequality.Semantic.DeepEqual(p.Spec.ParamKind, old.Spec.ParamKind) &&
			apiequality.Semantic.DeepEqual(p.Spec.MatchConditions, old.Spec.MatchConditions),
		old: newPreexisting(),
	}
	for _, mc := range old.Spec.MatchConditions {
		o.old.matchConditions.Insert(mc.Expression)
	}
	for _, v := range old.Spec.Validations {
		o.old.validations.Insert(v.Expression)
		if v.MessageExpression != "" {
			o.old.messageExpressions.Insert(v.MessageExpression)
		}
	}
	for _, a := range old.Spec.AuditAnnotations {
		o.old.auditAnnotations.Insert(a.ValueExpression)
	}
	return validateValidatingAdmissionPolicySpec(p.Name, &p.Spec, o, field.NewPath("spec"))
}

func validateValidatingAdmissionPolicySpec(name string, spec *v1.ValidatingAdmissionPolicySpec, o policyOptions, p *field.Path) field.ErrorList {
	var compiler plugincel.Compiler // the composition compiler has state: one per policy
	getCompiler := func() plugincel.Compiler {
		if compiler == nil {
			compiler = newCompiler(len(spec.Variables) > 0)
		}
		return compiler
	}
	errs := validateFailurePolicy(spec.FailurePolicy, p.Child("failurePolicy"))
	params := spec.ParamKind != nil
	if params {
		errs = append(errs, validateParamKind(spec.ParamKind, p.Child("paramKind"))...)
	}
	errs = append(errs, validateMatchConstraints(spec.MatchConstraints, p.Child("matchConstraints"))...)
	if !o.ignoreMatchConditions {
		errs = append(errs, validateMatchConditions(spec.MatchConditions, params, o.old, p.Child("matchConditions"))...)
	}
	for i := range spec.Variables {
		errs = append(errs, validateVariable(getCompiler(), &spec.Variables[i], params, o.old, p.Child("variables").Index(i))...)
	}
	if len(spec.Validations) == 0 && len(spec.AuditAnnotations) == 0 {
		return append(errs,
			field.Required(p.Child("validations"), "validations or auditAnnotations must contain at least one item"),
			field.Required(p.Child("auditAnnotations"), "validations or auditAnnotations must contain at least one item"))
	}
	for i := range spec.Validations {
		errs = append(errs, validateValidation(getCompiler(), &spec.Validations[i], params, o, p.Child("validations").Index(i))...)
	}
	if spec.AuditAnnotations == nil {
		return errs
	}
	if len(spec.AuditAnnotations) > maxAuditAnnotations {
		errs = append(errs, field.Invalid(p.Child("auditAnnotations"), spec.AuditAnnotations, fmt.Sprintf("must not have more than %d auditAnnotations", maxAuditAnnotations)))
	}
	keys := sets.NewString()
	for i := range spec.AuditAnnotations {
		a, ap := &spec.AuditAnnotations[i], p.Child("auditAnnotations").Index(i)
		errs = append(errs, validateAuditAnnotation(getCompiler(), name, a, params, o, ap)...)
		if keys.Has(a.Key) {
			errs = append(errs, field.Duplicate(ap.Child("key"), a.Key))
		}
		keys.Insert(a.Key)
	}
	return errs
}

func validateFailurePolicy(fp *v1.FailurePolicyType, p *field.Path) field.ErrorList {
	if fp == nil {
		return field.ErrorList{field.Required(p, "")}
	}
	if !supportedFailurePolicies.Has(string(*fp)) {
		return field.ErrorList{field.NotSupported(p, *fp, supportedFailurePolicies.List())}
	}
	return nil
}

// validateMatchConstraints checks a policy's required matchConstraints,
// which need a resource rule (it gives the expressions their types).
func validateMatchConstraints(mc *v1.MatchResources, p *field.Path) field.ErrorList {
	if mc == nil {
		return field.ErrorList{field.Required(p, "")}
	}
	errs := validateMatchResources(mc, p)
	if len(mc.ResourceRules) == 0 {
		errs = append(errs, field.Required(p.Child("resourceRules"), ""))
	}
	return errs
}

func validateParamKind(pk *v1.ParamKind, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	av := p.Child("apiVersion")
	if pk.APIVersion == "" {
		errs = append(errs, field.Required(av, ""))
	} else if group, version, err := parseGroupVersion(pk.APIVersion); err != nil {
		errs = append(errs, field.Invalid(av, pk.APIVersion, err.Error()))
	} else {
		if group != "" {
			if msgs := utilvalidation.IsDNS1123Subdomain(group); len(msgs) > 0 {
				errs = append(errs, field.Invalid(av, group, strings.Join(msgs, ",")))
			}
		}
		if version == "" {
			errs = append(errs, field.Invalid(av, pk.APIVersion, "version must be specified"))
		} else if msgs := utilvalidation.IsDNS1035Label(version); len(msgs) > 0 {
			errs = append(errs, field.Invalid(av, version, strings.Join(msgs, ",")))
		}
	}
	if pk.Kind == "" {
		errs = append(errs, field.Required(p.Child("kind"), ""))
	} else if msgs := utilvalidation.IsDNS1035Label(strings.ToLower(pk.Kind)); len(msgs) > 0 {
		errs = append(errs, field.Invalid(p.Child("kind"), pk.Kind, "may have mixed case, but should otherwise match: "+strings.Join(msgs, ",")))
	}
	return errs
}

// parseGroupVersion splits "group/version" ("v1" is the core group).
func parseGroupVersion(gv string) (group, version string, err error) {
	if gv == "" || gv == "/" {
		return "", "", nil
	}
	switch strings.Count(gv, "/") {
	case 0:
		return "", gv, nil
	case 1:
		g, v, _ := strings.Cut(gv, "/")
		return g, v, nil
	}
	return "", "", fmt.Errorf("unexpected GroupVersion string: %v", gv)
}

// validateMatchResources checks a policy's or binding's match resources
// (the selectors strictly: these types came after upstream's issue 99139).
func validateMatchResources(mc *v1.MatchResources, p *field.Path) field.ErrorList {
	if mc == nil {
		return nil
	}
	var errs field.ErrorList
	if mc.MatchPolicy == nil {
		errs = append(errs, field.Required(p.Child("matchPolicy"), ""))
	} else if !supportedMatchPolicies.Has(string(*mc.MatchPolicy)) {
		errs = append(errs, field.NotSupported(p.Child("matchPolicy"), *mc.MatchPolicy, supportedMatchPolicies.List()))
	}
	for _, s := range []struct {
		name string
		sel  *metav1.LabelSelector
	}{{"namespaceSelector", mc.NamespaceSelector}, {"objectSelector", mc.ObjectSelector}} {
		if s.sel == nil {
			errs = append(errs, field.Required(p.Child(s.name), ""))
		} else {
			errs = append(errs, metav1validation.ValidateLabelSelector(s.sel, metav1validation.LabelSelectorValidationOptions{}, p.Child(s.name))...)
		}
	}
	for i := range mc.ResourceRules {
		errs = append(errs, validateNamedRuleWithOperations(&mc.ResourceRules[i], p.Child("resourceRules").Index(i))...)
	}
	for i := range mc.ExcludeResourceRules {
		errs = append(errs, validateNamedRuleWithOperations(&mc.ExcludeResourceRules[i], p.Child("excludeResourceRules").Index(i))...)
	}
	return errs
}

func validateValidation(c plugincel.Compiler, v *v1.Validation, params bool, o policyOptions, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if strings.TrimSpace(v.Expression) == "" {
		errs = append(errs, field.Required(p.Child("expression"), "expression is not specified"))
	} else {
		errs = append(errs, compile(c, &policyvalidating.ValidationCondition{Expression: v.Expression},
			plugincel.OptionalVariableDeclarations{HasParams: params, HasAuthorizer: true},
			envFor(o.old.validations, v.Expression), p.Child("expression"))...)
	}
	trimmedMessageExpression := strings.TrimSpace(v.MessageExpression)
	if v.MessageExpression != "" && trimmedMessageExpression == "" {
		errs = append(errs, field.Invalid(p.Child("messageExpression"), v.MessageExpression, "must be non-empty if specified"))
	} else if trimmedMessageExpression != "" {
		// Not trimmed: the compiler's messages then give the right column.
		errs = append(errs, compile(c, &policyvalidating.MessageExpressionCondition{MessageExpression: v.MessageExpression},
			plugincel.OptionalVariableDeclarations{HasParams: params, HasAuthorizer: false},
			envFor(o.old.messageExpressions, v.MessageExpression), p.Child("messageExpression"))...)
	}
	trimmedMsg := strings.TrimSpace(v.Message)
	if v.Message != "" && trimmedMsg == "" {
		errs = append(errs, field.Invalid(p.Child("message"), v.Message, "must be non-empty if specified"))
	} else if newlines.MatchString(trimmedMsg) {
		errs = append(errs, field.Invalid(p.Child("message"), v.Message, "must not contain line breaks"))
	}
	if v.Reason != nil && !supportedValidationPolicyReasons.Has(string(*v.Reason)) {
		errs = append(errs, field.NotSupported(p.Child("reason"), *v.Reason, supportedValidationPolicyReasons.List()))
	}
	return errs
}

func validateAuditAnnotation(c plugincel.Compiler, policyName string, a *v1.AuditAnnotation, params bool, o policyOptions, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if policyName != "" {
		errs = append(errs, qualifiedName(policyName+"/"+a.Key, p.Child("key"))...)
	} else {
		errs = append(errs, field.Invalid(p.Child("key"), a.Key, "requires metadata.name be non-empty"))
	}
	vp := p.Child("valueExpression")
	trimmed := strings.TrimSpace(a.ValueExpression)
	switch {
	case trimmed == "":
		return append(errs, field.Required(vp, "valueExpression is not specified"))
	case len(trimmed) > maxAuditAnnotationValueExpressionLength:
		return append(errs, field.Required(vp, fmt.Sprintf("must not exceed %d bytes in length", maxAuditAnnotationValueExpressionLength)))
	}
	r := c.CompileCELExpression(&policyvalidating.AuditAnnotationCondition{ValueExpression: trimmed},
		plugincel.OptionalVariableDeclarations{HasParams: params, HasAuthorizer: true}, envFor(o.old.auditAnnotations, a.ValueExpression))
	if r.Error == nil {
		return errs
	}
	switch r.Error.Type {
	case cel.ErrorTypeRequired:
		errs = append(errs, field.Required(vp, r.Error.Detail))
	case cel.ErrorTypeInvalid:
		errs = append(errs, field.Invalid(vp, a.ValueExpression, r.Error.Detail))
	default:
		errs = append(errs, field.InternalError(vp, r.Error))
	}
	return errs
}

func qualifiedName(v string, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, msg := range utilvalidation.IsQualifiedName(v) {
		errs = append(errs, field.Invalid(p, v, msg))
	}
	return errs
}

// ValidateValidatingAdmissionPolicyStatus checks a status update.
func ValidateValidatingAdmissionPolicyStatus(s *v1.ValidatingAdmissionPolicyStatus) field.ErrorList {
	p := field.NewPath("status")
	var errs field.ErrorList
	if s.TypeChecking != nil {
		for i, w := range s.TypeChecking.ExpressionWarnings {
			wp := p.Child("typeChecking", "expressionWarnings").Index(i)
			if w.Warning == "" {
				errs = append(errs, field.Required(wp.Child("warning"), ""))
			}
			errs = append(errs, validateFieldRef(w.FieldRef, wp.Child("fieldRef"))...)
		}
	}
	return append(errs, metav1validation.ValidateConditions(s.Conditions, p.Child("conditions"))...)
}
