package rbac

import (
	"context"
	"fmt"
	"strings"

	rbacv1 "k8s.io/api/rbac/v1"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/klog/v2"
)

// Authorizer allows a request when a rule bound to its user grants it and
// has no opinion otherwise (the next authorizer, or 403).
type Authorizer struct {
	*Resolver
}

// New returns the RBAC authorizer over src.
func New(src Source) *Authorizer { return &Authorizer{NewResolver(src)} }

// Authorize implements authorizer.Authorizer. An allowed request's reason
// names the binding ("RBAC: allowed by ClusterRoleBinding …"); a refused
// one's reason carries the resolution errors, if any.
func (a *Authorizer) Authorize(ctx context.Context, attrs authorizer.Attributes) (authorizer.Decision, string, error) {
	var reason string
	allowed := false
	var errs []error
	a.VisitRulesFor(ctx, attrs.GetUser(), attrs.GetNamespace(), func(src fmt.Stringer, rule *rbacv1.PolicyRule, err error) bool {
		if rule != nil && RuleAllows(attrs, rule) {
			allowed, reason = true, "RBAC: allowed by "+src.String()
			return false
		}
		if err != nil {
			errs = append(errs, err)
		}
		return true
	})
	if allowed {
		return authorizer.DecisionAllow, reason, nil
	}
	if v := klog.V(5); v.Enabled() {
		v.Infof("RBAC: no rules authorize user %q with groups %q to %s", attrs.GetUser().GetName(), attrs.GetUser().GetGroups(), describe(attrs))
	}
	if len(errs) > 0 {
		return authorizer.DecisionNoOpinion, fmt.Sprintf("RBAC: %v", utilerrors.NewAggregate(errs)), nil
	}
	return authorizer.DecisionNoOpinion, "", nil
}

// RulesFor implements authorizer.RuleResolver (SelfSubjectRulesReview): the
// user's rules in the namespace split into resource and non-resource
// rules. The list is never incomplete by design, only by errors.
func (a *Authorizer) RulesFor(ctx context.Context, u user.Info, namespace string) ([]authorizer.ResourceRuleInfo, []authorizer.NonResourceRuleInfo, bool, error) {
	rules, err := a.Resolver.RulesFor(ctx, u, namespace)
	var res []authorizer.ResourceRuleInfo
	var nonRes []authorizer.NonResourceRuleInfo
	for _, r := range rules {
		if len(r.Resources) > 0 {
			res = append(res, &authorizer.DefaultResourceRuleInfo{Verbs: r.Verbs, APIGroups: r.APIGroups, Resources: r.Resources, ResourceNames: r.ResourceNames})
		}
		if len(r.NonResourceURLs) > 0 {
			nonRes = append(nonRes, &authorizer.DefaultNonResourceRuleInfo{Verbs: r.Verbs, NonResourceURLs: r.NonResourceURLs})
		}
	}
	return res, nonRes, false, err
}

// describe prints a request for the refusal log line.
func describe(a authorizer.Attributes) string {
	scope := "cluster-wide"
	if ns := a.GetNamespace(); ns != "" {
		scope = fmt.Sprintf("in namespace %q", ns)
	}
	if !a.IsResourceRequest() {
		return fmt.Sprintf("%q nonResourceURL %q %s", a.GetVerb(), a.GetPath(), scope)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%q resource \"%s", a.GetVerb(), a.GetResource())
	if g := a.GetAPIGroup(); g != "" {
		b.WriteString("." + g)
	}
	if s := a.GetSubresource(); s != "" {
		b.WriteString("/" + s)
	}
	b.WriteString(`"`)
	if n := a.GetName(); n != "" {
		fmt.Fprintf(&b, " named %q", n)
	}
	return b.String() + " " + scope
}
