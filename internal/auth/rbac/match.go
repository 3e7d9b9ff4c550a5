package rbac

import (
	"fmt"
	"strings"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apiserver/pkg/authorization/authorizer"
)

// RuleAllows reports whether one rule grants the request: for a resource
// request the verb, API group, resource ("pods", "pods/log", "*",
// "*/scale") and name; otherwise the verb and the path ("*" suffix is a
// prefix match).
func RuleAllows(a authorizer.Attributes, rule *rbacv1.PolicyRule) bool {
	if !verbMatches(rule, a.GetVerb()) {
		return false
	}
	if !a.IsResourceRequest() {
		return urlMatches(rule, a.GetPath())
	}
	resource := a.GetResource()
	if sub := a.GetSubresource(); sub != "" {
		resource += "/" + sub
	}
	return groupMatches(rule, a.GetAPIGroup()) &&
		resourceMatches(rule, resource, a.GetSubresource()) &&
		nameMatches(rule, a.GetName())
}

// RulesAllow reports whether any of rules grants the request.
func RulesAllow(a authorizer.Attributes, rules ...rbacv1.PolicyRule) bool {
	for i := range rules {
		if RuleAllows(a, &rules[i]) {
			return true
		}
	}
	return false
}

func verbMatches(rule *rbacv1.PolicyRule, verb string) bool {
	for _, v := range rule.Verbs {
		if v == rbacv1.VerbAll || v == verb {
			return true
		}
	}
	return false
}

func groupMatches(rule *rbacv1.PolicyRule, group string) bool {
	for _, g := range rule.APIGroups {
		if g == rbacv1.APIGroupAll || g == group {
			return true
		}
	}
	return false
}

// resourceMatches matches "*", the exact "resource[/subresource]", and
// "*/subresource" for a request of that subresource.
func resourceMatches(rule *rbacv1.PolicyRule, resource, subresource string) bool {
	for _, r := range rule.Resources {
		if r == rbacv1.ResourceAll || r == resource {
			return true
		}
		if subresource != "" && r == "*/"+subresource {
			return true
		}
	}
	return false
}

// nameMatches: a rule without resourceNames matches every name.
func nameMatches(rule *rbacv1.PolicyRule, name string) bool {
	if len(rule.ResourceNames) == 0 {
		return true
	}
	for _, n := range rule.ResourceNames {
		if n == name {
			return true
		}
	}
	return false
}

func urlMatches(rule *rbacv1.PolicyRule, path string) bool {
	for _, u := range rule.NonResourceURLs {
		if u == rbacv1.NonResourceAll || u == path {
			return true
		}
		if strings.HasSuffix(u, "*") && strings.HasPrefix(path, strings.TrimRight(u, "*")) {
			return true
		}
	}
	return false
}

// compactString prints a rule as the escalation error lists it:
// {APIGroups:["apps"], Resources:["deployments"], Verbs:["get"]}, fields
// left out when empty.
func compactString(r rbacv1.PolicyRule) string {
	var parts []string
	add := func(name string, v []string) {
		if len(v) > 0 {
			parts = append(parts, fmt.Sprintf("%s:%q", name, v))
		}
	}
	add("APIGroups", r.APIGroups)
	add("Resources", r.Resources)
	add("NonResourceURLs", r.NonResourceURLs)
	add("ResourceNames", r.ResourceNames)
	add("Verbs", r.Verbs)
	return "{" + strings.Join(parts, ", ") + "}"
}

// compactRules merges the rules that name one group and one resource (and
// at most one resourceName) and nothing else, so that the missing rights of
// an escalation are listed one line per resource with all their verbs.
func compactRules(rules []rbacv1.PolicyRule) []rbacv1.PolicyRule {
	type key struct {
		group, resource string
		named           bool
		name            string
	}
	out := make([]rbacv1.PolicyRule, 0, len(rules))
	simple := map[key]*rbacv1.PolicyRule{}
	var order []key
	for _, r := range rules {
		if len(r.ResourceNames) > 1 || r.NonResourceURLs != nil || len(r.APIGroups) != 1 || len(r.Resources) != 1 {
			out = append(out, r)
			continue
		}
		k := key{group: r.APIGroups[0], resource: r.Resources[0]}
		if len(r.ResourceNames) == 1 {
			k.named, k.name = true, r.ResourceNames[0]
		}
		if prev, ok := simple[k]; ok {
			prev.Verbs = append(prev.Verbs, r.Verbs...)
			continue
		}
		simple[k] = r.DeepCopy()
		order = append(order, k)
	}
	for _, k := range order {
		out = append(out, *simple[k])
	}
	return out
}
