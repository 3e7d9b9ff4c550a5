package admregutil

import (
	"fmt"
	"strings"

	v1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/api/validate/content"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

var (
	validScopes = sets.NewString(string(v1.ClusterScope), string(v1.NamespacedScope), string(v1.AllScopes))
	// supportedOperations are a rule's operations; admission policies that
	// mutate cannot act on DELETE.
	supportedOperations         = sets.NewString(string(v1.OperationAll), string(v1.Create), string(v1.Update), string(v1.Delete), string(v1.Connect))
	supportedMutatingOperations = sets.NewString(string(v1.OperationAll), string(v1.Create), string(v1.Update), string(v1.Connect))
)

func hasWildcard(items []string) bool {
	for _, s := range items {
		if s == "*" {
			return true
		}
	}
	return false
}

// validateResources checks a rule's resources, which may name
// subresources ("pods/status", "*/scale", "pods/*").
func validateResources(resources []string, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(resources) == 0 {
		errs = append(errs, field.Required(p, ""))
	}
	wildSubOf := sets.NewString()    // "x/*"
	wildResOfSub := sets.NewString() // "*/x"
	doubleWildcard, singleWildcard, plainResource := false, false, false
	for i, rs := range resources {
		if rs == "" {
			errs = append(errs, field.Required(p.Index(i), ""))
			continue
		}
		doubleWildcard = doubleWildcard || rs == "*/*"
		singleWildcard = singleWildcard || rs == "*"
		res, sub, hasSub := strings.Cut(rs, "/")
		if !hasSub {
			plainResource = rs != "*"
			continue
		}
		if wildSubOf.Has(res) {
			errs = append(errs, field.Invalid(p.Index(i), rs, fmt.Sprintf("if '%s/*' is present, must not specify %s", res, rs)))
		}
		if wildResOfSub.Has(sub) {
			errs = append(errs, field.Invalid(p.Index(i), rs, fmt.Sprintf("if '*/%s' is present, must not specify %s", sub, rs)))
		}
		if sub == "*" {
			wildSubOf.Insert(res)
		}
		if res == "*" {
			wildResOfSub.Insert(sub)
		}
	}
	if len(resources) > 1 && doubleWildcard {
		errs = append(errs, field.Invalid(p, resources, "if '*/*' is present, must not specify other resources"))
	}
	if singleWildcard && plainResource {
		errs = append(errs, field.Invalid(p, resources, "if '*' is present, must not specify other resources without subresources"))
	}
	return errs
}

// validateRule checks the group, version, resource and scope of a rule.
func validateRule(r *v1.Rule, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(r.APIGroups) == 0 {
		errs = append(errs, field.Required(p.Child("apiGroups"), ""))
	}
	if len(r.APIGroups) > 1 && hasWildcard(r.APIGroups) {
		errs = append(errs, field.Invalid(p.Child("apiGroups"), r.APIGroups, "if '*' is present, must not specify other API groups"))
	}
	if len(r.APIVersions) == 0 {
		errs = append(errs, field.Required(p.Child("apiVersions"), ""))
	}
	if len(r.APIVersions) > 1 && hasWildcard(r.APIVersions) {
		errs = append(errs, field.Invalid(p.Child("apiVersions"), r.APIVersions, "if '*' is present, must not specify other API versions"))
	}
	for i, v := range r.APIVersions {
		if v == "" {
			errs = append(errs, field.Required(p.Child("apiVersions").Index(i), ""))
		}
	}
	errs = append(errs, validateResources(r.Resources, p.Child("resources"))...)
	if r.Scope != nil && !validScopes.Has(string(*r.Scope)) {
		errs = append(errs, field.NotSupported(p.Child("scope"), *r.Scope, validScopes.List()))
	}
	return errs
}

// validateRuleWithOperations checks a rule and its operations.
func validateRuleWithOperations(r *v1.RuleWithOperations, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	ops := p.Child("operations")
	if len(r.Operations) == 0 {
		errs = append(errs, field.Required(ops, ""))
	}
	if len(r.Operations) > 1 {
		for _, o := range r.Operations {
			if o == v1.OperationAll {
				errs = append(errs, field.Invalid(ops, r.Operations, "if '*' is present, must not specify other operations"))
				break
			}
		}
	}
	for i, o := range r.Operations {
		if !supportedOperations.Has(string(o)) {
			errs = append(errs, field.NotSupported(ops.Index(i), o, supportedOperations.List()))
		}
	}
	return append(errs, validateRule(&r.Rule, p)...)
}

// validateNamedRuleWithOperations checks a policy's rule and its resource
// names (path segment names, no duplicates).
func validateNamedRuleWithOperations(r *v1.NamedRuleWithOperations, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	seen := sets.NewString()
	for i, name := range r.ResourceNames {
		for _, msg := range content.IsPathSegmentName(name) {
			errs = append(errs, field.Invalid(p.Child("resourceNames").Index(i), name, msg))
		}
		if seen.Has(name) {
			errs = append(errs, field.Duplicate(p.Child("resourceNames").Index(i), name))
		} else {
			seen.Insert(name)
		}
	}
	return append(errs, validateRuleWithOperations(&r.RuleWithOperations, p)...)
}
