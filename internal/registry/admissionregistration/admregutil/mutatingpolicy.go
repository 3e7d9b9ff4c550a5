package admregutil

import (
	"strings"

	v1 "k8s.io/api/admissionregistration/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation/field"
	plugincel "k8s.io/apiserver/pkg/admission/plugin/cel"
	"k8s.io/apiserver/pkg/admission/plugin/policy/mutating/patch"
)

var supportedPatchTypes = sets.NewString(string(v1.PatchTypeApplyConfiguration), string(v1.PatchTypeJSONPatch))

// ValidateMutatingAdmissionPolicy checks a new policy's spec.
func ValidateMutatingAdmissionPolicy(p *v1.MutatingAdmissionPolicy) field.ErrorList {
	return validateMutatingAdmissionPolicySpec(&p.Spec, policyOptions{old: newPreexisting()}, field.NewPath("spec"))
}

// ValidateMutatingAdmissionPolicyUpdate checks an update.
func ValidateMutatingAdmissionPolicyUpdate(p, old *v1.MutatingAdmissionPolicy) field.ErrorList {
	o := policyOptions{
		ignoreMatchConditions: apiequality.Semantic.DeepEqual(p.Spec.ParamKind, old.Spec.ParamKind) &&
			apiequality.Semantic.DeepEqual(p.Spec.MatchConditions, old.Spec.MatchConditions),
		old: newPreexisting(),
	}
	for _, mc := range old.Spec.MatchConditions {
		o.old.matchConditions.Insert(mc.Expression)
	}
	for _, m := range old.Spec.Mutations {
		if m.ApplyConfiguration != nil {
			o.old.applyConfigurations.Insert(m.ApplyConfiguration.Expression)
		}
		if m.JSONPatch != nil {
			o.old.jsonPatches.Insert(m.JSONPatch.Expression)
		}
	}
	return validateMutatingAdmissionPolicySpec(&p.Spec, o, field.NewPath("spec"))
}

func validateMutatingAdmissionPolicySpec(spec *v1.MutatingAdmissionPolicySpec, o policyOptions, p *field.Path) field.ErrorList {
	compiler := newCompiler(true)
	errs := validateFailurePolicy(spec.FailurePolicy, p.Child("failurePolicy"))
	params := spec.ParamKind != nil
	if params {
		errs = append(errs, validateParamKind(spec.ParamKind, p.Child("paramKind"))...)
	}
	errs = append(errs, validateMatchConstraints(spec.MatchConstraints, p.Child("matchConstraints"))...)
	if spec.MatchConstraints != nil {
		errs = append(errs, validateMutatingOperations(spec.MatchConstraints.ResourceRules, p.Child("matchConstraints", "resourceRules", "operations"))...)
	}
	if !o.ignoreMatchConditions {
		errs = append(errs, validateMatchConditions(spec.MatchConditions, params, o.old, p.Child("matchConditions"))...)
	}
	for i := range spec.Variables {
		errs = append(errs, validateVariable(compiler, &spec.Variables[i], params, o.old, p.Child("variables").Index(i))...)
	}
	if len(spec.Mutations) == 0 {
		errs = append(errs, field.Required(p.Child("mutations"), "mutations must contain at least one item"))
	}
	for i := range spec.Mutations {
		errs = append(errs, validateMutation(compiler, &spec.Mutations[i], params, o, p.Child("mutations").Index(i))...)
	}
	if spec.ReinvocationPolicy == "" {
		errs = append(errs, field.Required(p.Child("reinvocationPolicy"), ""))
	} else if !supportedReinvocationPolicies.Has(string(spec.ReinvocationPolicy)) {
		errs = append(errs, field.NotSupported(p.Child("reinvocationPolicy"), spec.ReinvocationPolicy, supportedReinvocationPolicies.List()))
	}
	return errs
}

func validateMutation(c plugincel.Compiler, m *v1.Mutation, params bool, o policyOptions, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	switch m.PatchType {
	case "":
		errs = append(errs, field.Required(p.Child("patchType"), ""))
	case v1.PatchTypeJSONPatch:
		if m.JSONPatch == nil {
			errs = append(errs, field.Required(p.Child("jsonPatch"), "must be specified when patchType is JSONPatch"))
		} else if expr := strings.TrimSpace(m.JSONPatch.Expression); expr == "" {
			errs = append(errs, field.Required(p.Child("jsonPatch", "expression"), ""))
		} else {
			// As upstream, a JSON patch counts as stored when the old
			// policy had it as an apply configuration.
			errs = append(errs, validateMutationExpression(c, &patch.JSONPatchCondition{Expression: expr}, params,
				envFor(o.old.applyConfigurations, m.JSONPatch.Expression), p.Child("jsonPatch", "expression"))...)
		}
		if m.ApplyConfiguration != nil {
			errs = append(errs, field.Invalid(p.Child("applyConfiguration"), "{applyConfiguration}", "must not be specified when patchType is JSONPatch"))
		}
	case v1.PatchTypeApplyConfiguration:
		if m.ApplyConfiguration == nil {
			errs = append(errs, field.Required(p.Child("applyConfiguration"), "must be specified when patchType is ApplyConfiguration"))
		} else if expr := strings.TrimSpace(m.ApplyConfiguration.Expression); expr == "" {
			errs = append(errs, field.Required(p.Child("applyConfiguration", "expression"), ""))
		} else {
			errs = append(errs, validateMutationExpression(c, &patch.ApplyConfigurationCondition{Expression: expr}, params,
				envFor(o.old.applyConfigurations, m.ApplyConfiguration.Expression), p.Child("applyConfiguration", "expression"))...)
		}
		if m.JSONPatch != nil {
			errs = append(errs, field.Invalid(p.Child("jsonPatch"), "{jsonPatch}", "must not be specified when patchType is ApplyConfiguration"))
		}
	default:
		errs = append(errs, field.NotSupported(p.Child("patchType"), m.PatchType, supportedPatchTypes.List()))
	}
	return errs
}
